/**
 * Browsers and edge runtimes keep the schemas as they are: compiling needs `new Function`,
 * which a content security policy or an edge runtime may forbid, and the compiler would weigh
 * more than the time it saves a page.
 */
export function compiled<Module extends object>(module: Module): Module {
  return module;
}
