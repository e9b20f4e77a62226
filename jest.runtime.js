const { compileFunction } = require('node:vm');
const Runtime = require('jest-runtime').default;

/**
 * jest-runtime, keeping V8's code cache of each module it compiles for the worker's later test files: every file has
 * its own module registry, so without it a worker parses mongodb, graphql, type-graphql and the app anew per file.
 * Only compilation is shared; each file still evaluates every module in its own context.
 */
const cache = new Map();

class CodeCacheRuntime extends Runtime {
  compile(scriptSource, filename) {
    const vmContext = this.environment.getVmContext();
    if (vmContext == null || this.resolution.isCoreModule(filename)) return super.compile(scriptSource, filename);
    const cached = cache.get(filename);
    const cachedData = cached?.source === scriptSource ? cached.data : undefined;
    let compiled;
    try {
      compiled = compileFunction(scriptSource, this.injectedModuleParameters, {
        filename,
        cachedData,
        produceCachedData: cachedData === undefined,
        importModuleDynamically: (specifier, _function, importAttributes, phase) =>
          this.dynamicImport(specifier, filename, vmContext, importAttributes, phase),
        parsingContext: vmContext,
      });
    } catch {
      return super.compile(scriptSource, filename); // its own error reporting
    }
    if (compiled.cachedDataProduced) cache.set(filename, { source: scriptSource, data: compiled.cachedData });
    return compiled;
  }
}

module.exports = CodeCacheRuntime;
