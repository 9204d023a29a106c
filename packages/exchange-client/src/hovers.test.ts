import { fileURLToPath } from 'node:url';
import spec from '@exchange-kit/contract/exchange/openapi.json' with { type: 'json' };
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';

// What an editor shows a user of the package: the TypeScript language service over a file
// that imports the packages by name, through their exports maps, as a consumer's would.
const directory = fileURLToPath(new URL('../', import.meta.url));
const consumer = `${directory}consumer.ts`;
const source = `import { isValidationErrorOf, type Order, type OrderCreateInput } from '@exchange-kit/exchange-client';
declare const order: Order;
order.order_type;
order.take_profit;
isValidationErrorOf;
const created: OrderCreateInput = { order_type: '' };
`;

let service: ts.LanguageService;

beforeAll(() => {
  const config = ts.readConfigFile(`${directory}tsconfig.json`, ts.sys.readFile).config;
  const { options } = ts.parseJsonConfigFileContent(config, ts.sys, directory);
  const read = (file: string) => (file === consumer ? source : ts.sys.readFile(file));
  service = ts.createLanguageService({
    getScriptFileNames: () => [consumer],
    getScriptVersion: () => '1',
    getScriptSnapshot: (file) => {
      const text = read(file);
      return text === undefined ? undefined : ts.ScriptSnapshot.fromString(text);
    },
    getCurrentDirectory: () => directory,
    getCompilationSettings: () => options,
    getDefaultLibFileName: ts.getDefaultLibFilePath,
    fileExists: (file) => file === consumer || ts.sys.fileExists(file),
    readFile: read,
    readDirectory: ts.sys.readDirectory,
    directoryExists: ts.sys.directoryExists,
    getDirectories: ts.sys.getDirectories,
  });
});

const hover = (after: string): string => {
  const info = service.getQuickInfoAtPosition(consumer, source.indexOf(after) + after.length);
  return ts.displayPartsToString(info?.displayParts);
};

describe('hovers name the spec types instead of spelling them out', () => {
  it('isValidationErrorOf shows its guard and table by name', () => {
    const text = hover('\nisValidation');
    expect(text).toContain('ValidationErrorGuard<ExchangeOperationTable>');
    expect(text.length).toBeLessThan(200);
  }, 60_000);

  it('an Order field shows the schema it is typed by', () => {
    expect(hover('order.order_')).toBe('(property) order_type: OrderType');
    expect(hover('order.take_')).toBe('(property) take_profit: NullableDecimalLike');
  });

  it('Order itself reads as the spec names its fields, no components["schemas"]', () => {
    const text = hover('declare const order: Or');
    expect(text).toContain('quantity: DecimalLike;');
    expect(text).not.toContain('components[');
    expect(text.length).toBeLessThan(600);
  });
});

describe('completion', () => {
  it("lists every order_type of the spec inside order_type: '|'", () => {
    const at = source.indexOf("order_type: '") + "order_type: '".length;
    const names = service.getCompletionsAtPosition(consumer, at, {})?.entries.map((e) => e.name);
    expect(spec.components.schemas.OrderType.enum.length).toBeGreaterThan(1);
    expect(names?.sort()).toEqual([...spec.components.schemas.OrderType.enum].sort());
  });
});
