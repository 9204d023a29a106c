/** Loads the response schemas of one interface, compiled where the platform allows it. */
const loaded = new WeakMap<object, object>();

export async function loadCompiled<Module extends object>(
  load: () => Promise<Module>,
): Promise<Module> {
  const [module, { compiled }] = await Promise.all([load(), import('#compile')]);
  let schemas = loaded.get(module) as Module | undefined;
  if (!schemas) {
    schemas = compiled(module);
    loaded.set(module, schemas);
  }
  return schemas;
}
