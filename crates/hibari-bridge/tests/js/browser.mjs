// roslibjs 2.x in headless Chromium as a test peer of hibari-bridge.
//   node browser.mjs <ws-url>
// Bundles roslib for the browser (esbuild), serves a page from a local HTTP
// server (so the WebSocket carries a real http Origin), drives Chromium
// through playwright-core, and checks what the page saw.
import assert from 'node:assert/strict';
import http from 'node:http';
import { build } from 'esbuild';
import { chromium } from 'playwright-core';

const [url] = process.argv.slice(2);
setTimeout(() => { console.error('browser scenario timed out'); process.exit(2); }, 30000).unref();

const bundle = await build({
  stdin: { contents: "export * from 'roslib';", resolveDir: process.cwd() },
  bundle: true,
  format: 'iife',
  globalName: 'ROSLIB',
  platform: 'browser',
  external: ['ws'],
  write: false,
  logLevel: 'silent',
});
const script = bundle.outputFiles[0].text;
const server = http.createServer((req, res) => {
  if (req.url === '/roslib.js') {
    res.writeHead(200, { 'content-type': 'text/javascript' });
    res.end(script);
  } else {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<!doctype html><title>hibari-bridge</title><script src="/roslib.js"></script>');
  }
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const page_url = `http://127.0.0.1:${server.address().port}/`;

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--no-first-run'],
});
try {
  const page = await browser.newPage();
  page.on('console', (m) => console.error(`[page] ${m.text()}`));
  await page.goto(page_url);
  const seen = await page.evaluate(async (url) => {
    const { Ros, Topic, Service } = window.ROSLIB;
    const ros = new Ros({ url });
    await new Promise((resolve, reject) => { ros.on('connection', resolve); ros.on('error', reject); });
    const take = (topic, n) => new Promise((resolve) => {
      const got = [];
      topic.subscribe((m) => { got.push(m); if (got.length === n) resolve(got); });
    });
    const echo = take(new Topic({ ros, name: '/to_browser', messageType: 'std_msgs/msg/String' }), 3);
    const cbor = new Ros({ url });
    await new Promise((resolve) => cbor.on('connection', resolve));
    const floats = take(new Topic({ ros: cbor, name: '/floats', messageType: 'std_msgs/msg/Float32MultiArray', compression: 'cbor' }), 1);
    await new Promise((r) => setTimeout(r, 100));
    const out = new Topic({ ros, name: '/from_browser', messageType: 'std_msgs/msg/String' });
    for (let i = 0; i < 3; i++) out.publish({ data: `from the browser ${i}` });
    new Topic({ ros: cbor, name: '/ready', messageType: 'std_msgs/msg/String' }).publish({ data: 'go' });
    const service = await new Promise((resolve, reject) =>
      new Service({ ros, name: '/set', serviceType: 'std_srvs/srv/SetBool' }).callService({ data: true }, resolve, reject));
    const topics = await new Promise((resolve, reject) => ros.getTopics(resolve, reject));
    const f = (await floats)[0];
    return {
      echo: (await echo).map((m) => m.data),
      floatsType: f.data.constructor.name,
      floats: Array.from(f.data),
      service,
      topics: topics.topics,
      origin: window.location.origin,
    };
  }, url);
  assert.deepEqual(seen.echo, [0, 1, 2].map((i) => `FROM THE BROWSER ${i}`));
  assert.equal(seen.floatsType, 'Float32Array');
  assert.deepEqual(seen.floats, [1.5, -2.25]);
  assert.deepEqual(seen.service, { success: true, message: 'got true' });
  assert.ok(seen.topics.includes('/from_browser') && seen.topics.includes('/rosout'));
  assert.match(seen.origin, /^http:\/\/127\.0\.0\.1:/);
  console.log('ok browser');
} finally {
  await browser.close();
  server.close();
}
process.exit(0);
