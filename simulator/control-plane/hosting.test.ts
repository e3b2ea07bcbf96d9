// Hosting the agent server of each deployment (spec §1): every start is a server of its own, on
// its own port, with a handler built for it; stopAll closes them all, promptly even while a request
// is still waiting for its answer. These tests listen on the loopback interface, as the simulator does.
import { expect, test } from '@playwright/test';
import type { AgentServer } from '../agent-server/agent-server.ts';
import { AgentServerHosting } from './hosting.ts';

/** A hosting whose servers answer which start built them, except at /hang, which never answers. */
function hosting(host = '127.0.0.1') {
  let built = 0;
  const disposed: number[] = [];
  const hosts = new AgentServerHosting({
    host,
    create: () => {
      const instance = ++built;
      // These tests look at the HTTP side only: the agent server is a token to find again.
      return {
        agent: { instance } as unknown as AgentServer,
        listener: (req, res) => {
          if (req.url === '/hang') return;
          res.setHeader('content-type', 'text/plain');
          res.end(`server ${instance}`);
        },
        dispose: () => disposed.push(instance),
      };
    },
  });
  return { hosts, built: () => built, disposed };
}

test('each start serves a handler built for it at a URL of its own', async () => {
  const { hosts, built } = hosting();
  try {
    const first = await hosts.start();
    const second = await hosts.start();
    expect(first).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(second).not.toBe(first);
    expect(built()).toBe(2);
    expect(await (await fetch(`${second}/threads`)).text()).toBe('server 2');
    expect(await (await fetch(first)).text()).toBe('server 1');
  } finally {
    await hosts.stopAll();
  }
});

test('stopAll closes every server promptly, even with a request in progress, and hosting can start again', async () => {
  const { hosts } = hosting();
  const url = await hosts.start();
  const other = await hosts.start();
  expect((await fetch(url)).status).toBe(200);
  const hanging = fetch(`${other}/hang`);
  hanging.catch(() => {});
  await new Promise((resolve) => setTimeout(resolve, 50));

  // Without closing the open connections, closing a server would wait for the hanging request forever.
  const timeout = new Promise<'timed out'>((resolve) => setTimeout(() => resolve('timed out'), 4000).unref());
  expect(await Promise.race([hosts.stopAll().then(() => 'stopped'), timeout])).toBe('stopped');
  await expect(hanging, 'the request in progress is cut off').rejects.toThrow();
  for (const stopped of [url, other]) await expect(fetch(stopped)).rejects.toThrow();
  await hosts.stopAll();

  const again = await hosts.start();
  try {
    expect((await fetch(again)).status).toBe(200);
  } finally {
    await hosts.stopAll();
  }
});

test('a server that cannot listen makes start fail, and nothing is left to stop', async () => {
  // 192.0.2.1 (TEST-NET-1) is an address no machine of ours has: listening there fails (EADDRNOTAVAIL).
  const { hosts } = hosting('192.0.2.1');
  await expect(hosts.start()).rejects.toThrow();
  await hosts.stopAll();
});

test('a restored server asks for its old port and takes a free one when that is taken; agentAt finds it by URL', async () => {
  const { hosts } = hosting();
  try {
    const taken = await hosts.start();
    const hosted = { agent: { restored: true } as unknown as AgentServer, listener: hosts.create().listener };
    const moved = await hosts.start(hosted, Number(new URL(taken).port));
    expect(moved).not.toBe(taken);
    expect(hosts.agentAt(moved)).toBe(hosted.agent);
    expect(hosts.agentAt('http://127.0.0.1:1')).toBeUndefined();
    await hosts.stopAll();
    const again = await hosts.start(hosted, Number(new URL(moved).port));
    expect(again, 'a free port is taken again').toBe(moved);
  } finally {
    await hosts.stopAll();
  }
});

test('stop closes the one server at a URL and disposes of it; stopAll disposes of the rest', async () => {
  const { hosts, disposed } = hosting();
  const first = await hosts.start();
  const second = await hosts.start();
  try {
    await hosts.stop(first);
    expect(disposed).toEqual([1]);
    await expect(fetch(first)).rejects.toThrow();
    expect(await (await fetch(second)).text()).toBe('server 2');
    expect(hosts.agentAt(first)).toBeUndefined();
    await hosts.stop(first);
    expect(disposed, 'a second stop is no error, and disposes nothing').toEqual([1]);
  } finally {
    await hosts.stopAll();
  }
  expect(disposed).toEqual([1, 2]);
});
