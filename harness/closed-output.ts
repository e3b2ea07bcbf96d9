// Whoever reads this process's output may go before it: `run … | head`, a CI step that stops
// reading, the parent that started `simulate` and died (it sees that only at its next look). A
// write to that closed pipe fails with EPIPE, and a stream error no one handles ends the process:
// a run without its report, a simulator mid-request. The output is lost; the work, its files and
// its exit status are not.

/** Makes a closed stdout or stderr drop what is written to it, rather than end the process. Safe to call more than once. */
export function outliveClosedOutput(): void {
  for (const stream of [process.stdout, process.stderr]) {
    if (!stream.listeners('error').includes(dropOutput)) stream.on('error', dropOutput);
  }
}

function dropOutput(): void {}
