'use strict';
// V8's code cache for the CommonJS files of node_modules, on Node versions without module.enableCompileCache
// (before 22.1). Playwright's runner and each of its workers compile some 7 MB of Playwright's bundles at start,
// a quarter of a small run's CPU; with the cache V8 reads the compiled code from disk instead. The CLI loads this
// file with --require in its own process and, through NODE_OPTIONS, in Playwright's. The same cache as
// v8-compile-cache (used by Yarn and ESLint for years), in the few lines Node 20 needs:
// - a file whose code calls import() through eval (Playwright's loader of ESM configs and tests) compiles as
//   Node compiles it: V8 drops the dynamic-import callback of code read from the cache, and eval inherits it;
// - what V8 cannot compile as CommonJS (ES module syntax, which Node then loads as a module) is left to Node.
// NODE_DISABLE_COMPILE_CACHE=1 turns it off, as it turns off Node's own cache.
const Module = require('node:module');
const vm = require('node:vm');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { createHash } = require('node:crypto');

const IN_NODE_MODULES = `${path.sep}node_modules${path.sep}`;
const EVAL_IMPORT = /eval\(\s*[`'"]import\(/;
/** Set once the cache is in place in this process, by this file or by another copy of it (an installed package's). */
const INSTALLED = Symbol.for('agent-platform-conformance.v8-code-cache');

/**
 * Compiles the CommonJS files of node_modules with the code cache of `directory`, made for this user alone:
 * a file there is run as compiled code, so a folder someone else can write to is not used.
 */
function install(directory) {
  if (globalThis[INSTALLED] || !directory || process.env.NODE_DISABLE_COMPILE_CACHE || Module.enableCompileCache) return;
  globalThis[INSTALLED] = true;
  try {
    fs.mkdirSync(directory, { recursive: true, mode: 0o700 });
    const folder = fs.statSync(directory);
    if ((process.getuid && folder.uid !== process.getuid()) || (folder.mode & 0o022) !== 0) return;
  } catch {
    return;
  }
  const compile = Module.prototype._compile;
  /** Scripts compiled without a usable cache: their code, with what ran of it compiled, is saved at exit. */
  const fresh = [];
  Module.prototype._compile = function (content, filename) {
    if (!filename.includes(IN_NODE_MODULES) || EVAL_IMPORT.test(content)) return compile.call(this, content, filename);
    // Named by the content: V8 checks only the length of the source a cache was made from.
    const file = path.join(directory, `${createHash('sha1').update(content).digest('hex')}.bin`);
    let cachedData;
    try {
      cachedData = fs.readFileSync(file);
    } catch {
      // Not cached yet.
    }
    let script;
    try {
      script = new vm.Script(Module.wrap(content.replace(/^#!.*/, '')), {
        filename,
        cachedData,
        importModuleDynamically: (specifier) => import(isUrlOrAbsolute(specifier) ? specifier : Module.createRequire(filename).resolve(specifier)),
      });
    } catch {
      return compile.call(this, content, filename);
    }
    if (cachedData === undefined || script.cachedDataRejected) fresh.push({ script, file });
    const mod = this;
    const require = (id) => mod.require(id);
    require.resolve = (request, options) => Module._resolveFilename(request, mod, false, options);
    require.resolve.paths = (request) => Module._resolveLookupPaths(request, mod);
    require.main = process.mainModule;
    require.extensions = Module._extensions;
    require.cache = Module._cache;
    return script.runInThisContext({ displayErrors: true }).call(mod.exports, mod.exports, require, mod, filename, path.dirname(filename));
  };
  process.once('exit', () => {
    try {
      for (const { script, file } of fresh) {
        // Written aside and renamed: a process reading the cache meanwhile sees a whole file or none.
        const partial = `${file}.${process.pid}`;
        fs.writeFileSync(partial, script.createCachedData(), { mode: 0o600 });
        fs.renameSync(partial, file);
      }
    } catch {
      // A cache that cannot be written is only slower.
    }
  });
}

/** Installs the cache in this process and in the Node processes it starts (NODE_OPTIONS), which inherit its folder. */
function enable() {
  if (process.env.NODE_DISABLE_COMPILE_CACHE || Module.enableCompileCache) return;
  const user = process.getuid ? process.getuid() : 'user';
  process.env.APC_V8_CODE_CACHE ??= path.join(os.tmpdir(), `agent-platform-conformance-v8-cache-${user}`, `${process.version}-${process.arch}`);
  const required = `--require ${JSON.stringify(__filename)}`;
  if (!process.env.NODE_OPTIONS?.includes(required)) process.env.NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ''} ${required}`.trim();
  install(process.env.APC_V8_CODE_CACHE);
}

// Preloaded (--require) in a process the CLI started: the folder its environment names.
install(process.env.APC_V8_CODE_CACHE);
module.exports = { enable };

function isUrlOrAbsolute(specifier) {
  return /^[a-z][a-z0-9+.-]*:/i.test(specifier) || path.isAbsolute(specifier);
}
