/**
 * What the console's scripts share, served first as `/console-common.js`: reading and posting
 * same-origin JSON, filling a table, and one Pusher connection to the sandbox's own events that
 * comes back after a drop. Classic scripts share their top-level names, so the others use these.
 */
import { eventsPath } from '@exchange-kit/contract/events';

export const consoleCommonScript = `'use strict';
const eventsUrl = (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + ${JSON.stringify(eventsPath)};
const $ = (id) => document.getElementById(id);
/** Whether the sandbox serves test control, as the console session says: the buttons show then. */
let testControl = false;
const getJson = async (path) => {
  const response = await fetch(path, { headers: { accept: 'application/json' } });
  if (!response.ok) throw new Error(path + ': ' + response.status);
  return response.json();
};
const postJson = async (path, body) => {
  const response = await fetch(path, {
    method: 'POST',
    headers: { accept: 'application/json', 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(path + ': ' + response.status + ' ' + JSON.stringify(answer));
  return answer;
};
const cells = (row, values) => {
  for (const value of values) row.insertCell().textContent = value === null || value === undefined ? '' : String(value);
  return row;
};
/** Replaces a table's rows: one per model, its columns' values, then any buttons it gets. */
const showRows = (bodyId, models, columns, buttons) => {
  const body = $(bodyId);
  body.replaceChildren();
  for (const model of models) {
    const row = cells(body.insertRow(), columns.map((column) => model[column]));
    row.dataset.id = String(model.id ?? model.transaction_id ?? '');
    const actions = row.insertCell();
    for (const [label, act] of buttons ? buttons(model) : []) {
      const button = document.createElement('button');
      button.type = 'button';
      button.textContent = label;
      button.addEventListener('click', () => act().catch(showError));
      actions.append(button);
    }
  }
};
const showError = (error) => { $('error').textContent = String(error.message || error); };

/**
 * A connection to the sandbox's events. onOpen runs each time it is established (subscribe
 * there); onEvent gets every other frame; onBack runs after a drop, to read again what was missed.
 */
function pusherConnection({ status, onOpen, onEvent, onBack }) {
  let socket;
  const send = (event, data) => {
    if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ event, data }));
  };
  const open = () => {
    socket = new WebSocket(eventsUrl);
    status('connecting');
    socket.onmessage = (message) => {
      const frame = JSON.parse(message.data);
      const data = typeof frame.data === 'string' ? JSON.parse(frame.data) : frame.data;
      if (frame.event === 'pusher:connection_established') {
        status('live');
        onOpen();
      } else if (frame.event === 'pusher:ping') {
        send('pusher:pong', {});
      } else {
        onEvent(frame.event, frame.channel, data);
      }
    };
    socket.onclose = () => {
      status('reconnecting');
      setTimeout(() => { open(); onBack(); }, 1000);
    };
  };
  open();
  return { send };
}
`;
