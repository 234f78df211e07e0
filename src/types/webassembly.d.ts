/**
 * The part of the WebAssembly JS API the worker pool uses. Node has it as a global, but the ES libs do not
 * declare it (TypeScript puts it in the DOM lib, which a Node server should not pull in).
 */
declare namespace WebAssembly {
  class Module {
    constructor(bytes: BufferSource);
  }
  class Instance {
    constructor(module: Module, imports?: Imports);
    readonly exports: Record<string, unknown>;
  }
  class RuntimeError extends Error {}
  type Imports = Record<string, Record<string, unknown>>;
  function compile(bytes: BufferSource): Promise<Module>;
  function instantiate(module: Module, imports?: Imports): Promise<Instance>;
}
