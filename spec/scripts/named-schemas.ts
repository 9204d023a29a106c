/**
 * openapi-typescript writes every schema inside `components["schemas"]` and every reference
 * as `components["schemas"]["Name"]`, so an editor's hover shows that text, or the expanded
 * union, where the spec gives a name. This pass declares each component schema as an exported
 * type under the spec's name (its doc comment with it), leaves `components["schemas"]["Name"]`
 * as that alias, and writes every reference as the name: a hover reads `quantity: DecimalLike`
 * and `order_type: OrderType`. It refuses a name openapi-typescript exports itself and a shape
 * it does not recognise, so a generator upgrade cannot slip past it.
 */
import ts from 'typescript';

type Json = Record<string, unknown>;

const taken = new Set(['paths', 'webhooks', 'components', '$defs', 'operations']);

function schemasMembers(code: string): ts.NodeArray<ts.TypeElement> {
  const file = ts.createSourceFile('types.ts', code, ts.ScriptTarget.Latest, true);
  const components = file.statements.find(
    (s): s is ts.InterfaceDeclaration =>
      ts.isInterfaceDeclaration(s) && s.name.text === 'components',
  );
  const schemas = components?.members.find(
    (m): m is ts.PropertySignature => ts.isPropertySignature(m) && m.name.getText() === 'schemas',
  );
  if (!schemas?.type || !ts.isTypeLiteralNode(schemas.type)) {
    throw new Error('the generated types have no components.schemas written as an object type');
  }
  return schemas.type.members;
}

export function namedSchemas(code: string, document: Json): string {
  const names = Object.keys(((document.components as Json | undefined)?.schemas ?? {}) as Json);
  if (names.length === 0) return code;
  for (const name of names) {
    if (taken.has(name) || !/^[A-Za-z_$][\w$]*$/.test(name)) {
      throw new Error(`schema ${name} cannot be exported under its own name`);
    }
  }
  const known = new Set(names);
  const named = code.replace(/components\["schemas"\]\["([^"]+)"\]/g, (reference, name) =>
    known.has(name) ? name : reference,
  );
  const aliases: string[] = [];
  let out = '';
  let from = 0;
  for (const member of schemasMembers(named)) {
    const name = member.name?.getText();
    if (!ts.isPropertySignature(member) || !member.type || !name || !known.has(name)) {
      throw new Error(`components.schemas.${name} is not a schema of the spec`);
    }
    const docs = member
      .getFullText()
      .slice(0, member.getStart() - member.getFullStart())
      .trim();
    const alias = `${docs ? `${docs}\n` : ''}export type ${name} = ${member.type.getText()};`;
    // Written at the top level, two levels out from where openapi-typescript put it.
    aliases.push(alias.replace(/\n {8}/g, '\n'));
    out += `${named.slice(from, member.type.getStart())}${name}`;
    from = member.type.getEnd();
  }
  return `${out}${named.slice(from)}${aliases.join('\n')}\n`;
}
