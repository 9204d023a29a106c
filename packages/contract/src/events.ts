/**
 * The exchange's events (spec/exchange.asyncapi.yaml): its channels by name, what each one's
 * events carry, and the Pusher protocol's own events. A channel's address is its name's
 * template filled in: `channelAddress('productCash', { pair: 'btcjpy', productId: 5 })` is
 * `product_cash_btcjpy_5`, and `channelOf` reads an address back.
 */
import { type ChannelName, channels } from './generated/events.js';

export type {
  ChannelName,
  ChannelPayloads,
  ProtocolMessage,
  ProtocolPayloads,
} from './generated/events.js';
export { channels, eventsPath, protocolEvents } from './generated/events.js';

type Template<Name extends ChannelName> = (typeof channels)[Name]['address'];

type ParametersOf<Address extends string> =
  Address extends `${string}{${infer Parameter}}${infer Rest}`
    ? Parameter | ParametersOf<Rest>
    : never;

type Filled<Address extends string> = Address extends `${infer Head}{${string}}${infer Rest}`
  ? `${Head}${string}${Filled<Rest>}`
  : Address;

/** The values that fill a channel's address: every parameter its template names. */
export type ChannelParameters<Name extends ChannelName> = {
  [Parameter in ParametersOf<Template<Name>>]: string | number;
};

/** Any address of the channel: its template with each parameter filled in. */
export type ChannelAddress<Name extends ChannelName> = Filled<Template<Name>>;

// Codes, pairs and ids are lowercase letters and digits: a parameter never holds `_`, so an
// address names one channel at most.
const parameterValue = /^[a-z0-9]+$/;

/**
 * The address of a channel. Currency and pair codes are written lowercase, as channel names
 * are; a value that is not letters and digits names no channel and is refused.
 */
export function channelAddress<Name extends ChannelName>(
  name: Name,
  parameters: ChannelParameters<Name>,
): ChannelAddress<Name> {
  const values = parameters as Record<string, string | number>;
  return channels[name].address.replace(/\{(\w+)\}/g, (_, parameter: string) => {
    const value = String(values[parameter]).toLowerCase();
    if (!parameterValue.test(value)) {
      throw new TypeError(`${name}: ${parameter} must be letters and digits, got "${value}"`);
    }
    return value;
  }) as ChannelAddress<Name>;
}

const matchers = Object.entries(channels).map(([name, channel]) => ({
  name: name as ChannelName,
  parameters: channel.parameters as readonly string[],
  pattern: new RegExp(`^${channel.address.replace(/\{\w+\}/g, '([a-z0-9]+)')}$`),
}));

/** The channel an address names, with its parameters as written; undefined for none. */
export function channelOf(
  address: string,
): { name: ChannelName; parameters: Record<string, string> } | undefined {
  for (const matcher of matchers) {
    const found = matcher.pattern.exec(address);
    if (!found) continue;
    const values = matcher.parameters.map((parameter, at) => [parameter, found[at + 1] as string]);
    return { name: matcher.name, parameters: Object.fromEntries(values) };
  }
  return undefined;
}
