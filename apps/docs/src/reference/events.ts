import { channels, eventsPath } from '@exchange-kit/contract/events';
import { cell, schemaLink } from './openapi.js';

/** A channel's payload: a link to its REST schema, or to the schema of each item of a list. */
function payloadLink(payload: string): string {
  const schema = payload.replace(/\[\]$/, '');
  const link = `[\`${schema}\`](${schemaLink('exchange', schema)})`;
  return payload.endsWith('[]') ? `a list of ${link}` : link;
}

/** The events page: the endpoint, then one line per channel of the AsyncAPI document. */
export function renderEvents(): string {
  const rows = Object.entries(channels).map(([name, channel]) =>
    [
      `\`${name}\``,
      channel.carriesState ? `${channel.title} (its whole state in each event)` : channel.title,
      `\`${channel.address}\``,
      channel.events.map((event) => `\`${event}\``).join(', '),
      channel.private ? 'the user’s own, after `quoine:auth_request`' : 'public',
      payloadLink(channel.payload),
    ]
      .map((value) => cell(value))
      .join(' | '),
  );
  return [
    '---',
    'aside: false',
    '---',
    '',
    '# Events',
    '',
    `The exchange publishes changes on websocket channels at \`${eventsPath}\` on its own host, in the Pusher protocol (\`spec/exchange.asyncapi.yaml\`, AsyncAPI 3). Each event's \`data\` is a JSON string holding the REST interface's own shape, linked below. A private channel carries the events of the user whose token signed the connection's \`quoine:auth_request\` (an \`X-Service-Auth\` JWT for the path \`/realtime\`, with the nonce rules of any call), and refuses another user's. A channel whose events carry its whole state sends changes stored together as one event, the state after the last of them; the others send every change. \`client.events\` of the exchange client subscribes by the names below, typed.`,
    '',
    '| Name | What it carries | Address | Events | Who may subscribe | Payload |',
    '|---|---|---|---|---|---|',
    ...rows.map((row) => `| ${row} |`),
    '',
  ].join('\n');
}
