// W2 of the E2 benchmark (shared/specs/bridge.md §5(b)): roslibjs
// `Topic.publish` in a loop, driven by examples/e2_bridge like its other
// clients: prints "advertised", waits for "go" on stdin, publishes N
// messages "hello, <i>, <CLOCK_MONOTONIC ns>", waits until its socket has
// written everything, prints "sent <start> <end>", waits for "done".
//   node bench_roslibjs.mjs <ws-url> <n>
import readline from 'node:readline';
import { Ros, Topic } from 'roslib';

const [url, nText] = process.argv.slice(2);
const n = Number(nText);
const lines = readline.createInterface({ input: process.stdin })[Symbol.asyncIterator]();
const waitFor = async (word) => { for (;;) { const { value, done } = await lines.next(); if (done || value.trim() === word) return; } };

const ros = new Ros({ url });
await new Promise((resolve, reject) => { ros.on('connection', resolve); ros.on('error', reject); });
const topic = new Topic({ ros, name: '/chatter', messageType: 'std_msgs/msg/String' });
topic.advertise();
console.log('advertised');
await waitFor('go');
const start = process.hrtime.bigint();
for (let i = 0; i < n; i++) {
  topic.publish({ data: `hello, ${i}, ${process.hrtime.bigint()}` });
}
const socket = ros.transport.socket;
while (socket.bufferedAmount > 0) await new Promise((r) => setImmediate(r));
const end = process.hrtime.bigint();
console.log(`sent ${start} ${end}`);
await waitFor('done');
ros.close();
process.exit(0);
