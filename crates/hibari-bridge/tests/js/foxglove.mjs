// @foxglove/ws-protocol's FoxgloveClient as a test peer of hibari-bridge.
//   node foxglove.mjs <ws-url>
// Checks serverInfo under both subprotocols, channels advertised from the
// hibari graph with ros2msg schemas, raw CDR message data, client
// publishing (cdr and json), service calls (cdr and json), the connection
// graph, the time, and unadvertise when a native publisher goes.
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import foxglove from '@foxglove/ws-protocol'; // CommonJS

const { FoxgloveClient } = foxglove;

const [url] = process.argv.slice(2);
setTimeout(() => { console.error('foxglove scenario timed out'); process.exit(2); }, 15000).unref();

const next = (client, event, pred = () => true) => new Promise((resolve) => {
  const on = (m) => { if (pred(m)) { client.off(event, on); resolve(m); } };
  client.on(event, on);
});

/** CDR (little-endian) of a std_msgs/String. */
function cdrString(s) {
  const text = new TextEncoder().encode(s);
  const out = new Uint8Array(4 + 4 + text.length + 1);
  out.set([0, 1, 0, 0]);
  new DataView(out.buffer).setUint32(4, text.length + 1, true);
  out.set(text, 8);
  return out;
}

function readCdrString(bytes, offset) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const len = view.getUint32(offset, true);
  return new TextDecoder().decode(bytes.subarray(offset + 4, offset + 4 + len - 1));
}

for (const offer of [['foxglove.websocket.v1'], ['foxglove.sdk.v1', 'foxglove.websocket.v1']]) {
  const ws = new WebSocket(url, offer);
  const client = new FoxgloveClient({ ws });
  // Listen before the first await: advertisements follow serverInfo at once.
  const channels = new Map();
  client.on('advertise', (cs) => cs.forEach((c) => channels.set(c.topic, c)));
  const services = new Map();
  client.on('advertiseServices', (ss) => ss.forEach((s) => services.set(s.name, s)));
  const timeEvent = next(client, 'time');
  const info = await next(client, 'serverInfo');
  assert.equal(ws.protocol, offer[0], 'the offered subprotocol is echoed');
  assert.ok(info.capabilities.includes('clientPublish') && info.capabilities.includes('services'));
  assert.deepEqual(info.supportedEncodings, ['cdr', 'json']);
  if (offer.length === 1) { client.close(); continue; }

  await new Promise((r) => setTimeout(r, 200));
  const data = channels.get('/fox_data');
  assert.ok(data, `channels: ${[...channels.keys()]}`);
  assert.equal(data.encoding, 'cdr');
  assert.equal(data.schemaName, 'std_msgs/msg/String');
  assert.equal(data.schemaEncoding, 'ros2msg');
  assert.match(data.schema, /string data/);

  // Raw CDR out: subscribe, then ask the native side to publish.
  const sub = client.subscribe(data.id);
  const message = next(client, 'message', (m) => m.subscriptionId === sub);
  const ready = client.advertise({ topic: '/ready', encoding: 'json', schemaName: 'std_msgs/msg/String' });
  const input = client.advertise({ topic: '/fox_in', encoding: 'cdr', schemaName: 'std_msgs/String' });
  await new Promise((r) => setTimeout(r, 100));
  client.sendMessage(ready, new TextEncoder().encode(JSON.stringify({ data: 'publish' })));
  const m = await message;
  const bytes = new Uint8Array(m.data.buffer, m.data.byteOffset, m.data.byteLength);
  assert.deepEqual([...bytes], [...cdrString('hello fox')], 'the CDR bytes untouched');
  assert.equal(typeof m.timestamp, 'bigint');
  // Client publish, CDR as-is.
  client.sendMessage(input, cdrString('from foxglove'));

  // Services, CDR and JSON.
  const set = services.get('/set');
  assert.ok(set, `services: ${[...services.keys()]}`);
  assert.equal(set.type, 'std_srvs/srv/SetBool');
  assert.match(set.requestSchema, /bool data/);
  const cdrReply = next(client, 'serviceCallResponse', (r) => r.callId === 1);
  client.sendServiceCallRequest({ serviceId: set.id, callId: 1, encoding: 'cdr', data: new Uint8Array([0, 1, 0, 0, 1]) });
  const r1 = await cdrReply;
  const rb = new Uint8Array(r1.data.buffer, r1.data.byteOffset, r1.data.byteLength);
  assert.equal(r1.encoding, 'cdr');
  assert.equal(rb[4], 1, 'success: true');
  assert.equal(readCdrString(rb, 8), 'got true');
  const jsonReply = next(client, 'serviceCallResponse', (r) => r.callId === 2);
  client.sendServiceCallRequest({ serviceId: set.id, callId: 2, encoding: 'json', data: new TextEncoder().encode('{"data": false}') });
  const r2 = await jsonReply;
  assert.deepEqual(JSON.parse(new TextDecoder().decode(r2.data)), { success: false, message: 'got false' });
  const failure = next(client, 'serviceCallFailure');
  client.sendServiceCallRequest({ serviceId: 999999, callId: 3, encoding: 'cdr', data: new Uint8Array([0, 1, 0, 0]) });
  const status = next(client, 'status');
  await Promise.race([failure, status]);

  // The connection graph, then a publisher going away.
  const graph = next(client, 'connectionGraphUpdate');
  client.subscribeConnectionGraph();
  const g = await graph;
  const published = g.publishedTopics.find((t) => t.name === '/fox_data');
  assert.ok(published && published.publisherIds.includes('/native'), JSON.stringify(g.publishedTopics));
  const gone = next(client, 'unadvertise', (ids) => ids.includes(data.id));
  client.sendMessage(ready, new TextEncoder().encode(JSON.stringify({ data: 'drop' })));
  await gone;
  const t = await timeEvent;
  assert.equal(typeof t.timestamp, 'bigint');
  client.close();
}
console.log('ok foxglove');
process.exit(0);
