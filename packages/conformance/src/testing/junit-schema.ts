/**
 * A small XML reader and a structural check of a JUnit report against the shape of the JUnit
 * schema that CI servers read (Jenkins' junit-10.xsd): no validator of XSD runs on Node without
 * a native library, and the shape is small enough to spell out.
 */
export interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  text: string;
}

const entities: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const decode = (text: string) =>
  text.replace(/&(amp|lt|gt|quot|apos);/g, (_, name: string) => entities[name] ?? '');

/** Parses well-formed XML (elements, attributes, text; no DTD); throws on anything else. */
export function parseXml(xml: string): XmlElement {
  const body = xml.replace(/^<\?xml[^?]*\?>\s*/, '');
  const token = /<\/([\w:-]+)\s*>|<([\w:-]+)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>|([^<]+)/gy;
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  let at = 0;
  while (at < body.length) {
    token.lastIndex = at;
    const match = token.exec(body);
    if (!match) throw new Error(`not well-formed XML at ${at}: ${body.slice(at, at + 40)}`);
    at = token.lastIndex;
    const [, closing, opening, attributeText, selfClosing, text] = match;
    if (text !== undefined) {
      if (stack.length === 0 && text.trim()) throw new Error('text outside the root element');
      const current = stack.at(-1);
      if (current) current.text += decode(text);
    } else if (closing) {
      const open = stack.pop();
      if (open?.name !== closing) throw new Error(`</${closing}> closes <${open?.name}>`);
    } else if (opening) {
      const attributes: Record<string, string> = {};
      for (const [, name, value] of (attributeText ?? '').matchAll(/([\w:-]+)="([^"]*)"/g)) {
        if (name === undefined || name in attributes) throw new Error(`attribute ${name} twice`);
        attributes[name] = decode(value ?? '');
      }
      const element: XmlElement = { name: opening, attributes, children: [], text: '' };
      const parent = stack.at(-1);
      if (parent) parent.children.push(element);
      else if (root) throw new Error('more than one root element');
      else root = element;
      if (!selfClosing) stack.push(element);
    }
  }
  if (!root || stack.length > 0) throw new Error('unclosed elements');
  return root;
}

const count = /^\d+$/;
const time = /^\d+(\.\d+)?$/;

function expectAttributes(
  element: XmlElement,
  shapes: Record<string, RegExp>,
  required: string[],
): void {
  for (const name of required) {
    if (!(name in element.attributes)) throw new Error(`<${element.name}> lacks ${name}`);
  }
  for (const [name, value] of Object.entries(element.attributes)) {
    const shape = shapes[name];
    if (!shape) throw new Error(`<${element.name}> has attribute ${name}, not in the schema`);
    if (!shape.test(value)) throw new Error(`<${element.name} ${name}="${value}"> is malformed`);
  }
}

const any = /^[\s\S]*$/;

/**
 * Throws unless `root` has the JUnit schema's shape, with `failures`, `errors`, `skipped` and
 * `time` on every testsuite, `time` on every testcase, and every count matching the testcases.
 */
export function checkJunit(root: XmlElement): void {
  if (root.name !== 'testsuites') throw new Error(`root is <${root.name}>, not <testsuites>`);
  const totals = { tests: 0, failures: 0, errors: 0, skipped: 0 };
  expectAttributes(
    root,
    { name: any, tests: count, failures: count, errors: count, skipped: count, time },
    [],
  );
  for (const suite of root.children) {
    if (suite.name !== 'testsuite') throw new Error(`<testsuites> holds <${suite.name}>`);
    expectAttributes(
      suite,
      {
        name: any,
        tests: count,
        failures: count,
        errors: count,
        skipped: count,
        time,
        timestamp: /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/,
        hostname: any,
      },
      ['name', 'tests', 'failures', 'errors', 'skipped', 'time'],
    );
    const found = { tests: 0, failures: 0, errors: 0, skipped: 0 };
    for (const testcase of suite.children) {
      if (testcase.name === 'system-out' || testcase.name === 'system-err') continue;
      if (testcase.name !== 'testcase') throw new Error(`<testsuite> holds <${testcase.name}>`);
      expectAttributes(testcase, { name: any, classname: any, time }, [
        'name',
        'classname',
        'time',
      ]);
      found.tests++;
      const kinds = testcase.children.map((child) => child.name);
      for (const child of testcase.children) {
        if (child.name === 'failure' || child.name === 'error')
          expectAttributes(child, { message: any, type: any }, ['message']);
        else if (child.name === 'skipped') expectAttributes(child, { message: any }, []);
        else if (child.name !== 'system-out' && child.name !== 'system-err')
          throw new Error(`<testcase> holds <${child.name}>`);
      }
      if (kinds.includes('skipped') && (kinds.includes('failure') || kinds.includes('error')))
        throw new Error(`testcase ${testcase.attributes.name} is both skipped and failed`);
      if (kinds.includes('failure')) found.failures++;
      if (kinds.includes('error')) found.errors++;
      if (kinds.includes('skipped')) found.skipped++;
    }
    for (const [name, value] of Object.entries(found)) {
      if (String(value) !== suite.attributes[name])
        throw new Error(
          `testsuite ${suite.attributes.name} says ${name}="${suite.attributes[name]}" but holds ${value}`,
        );
      totals[name as keyof typeof totals] += value;
    }
  }
  for (const [name, value] of Object.entries(totals)) {
    if (name in root.attributes && String(value) !== root.attributes[name])
      throw new Error(`testsuites says ${name}="${root.attributes[name]}" but holds ${value}`);
  }
}
