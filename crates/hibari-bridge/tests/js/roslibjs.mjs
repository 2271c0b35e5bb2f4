// roslibjs 2.x under Node as a test peer of hibari-bridge.
//   node roslibjs.mjs <ws-url> <scenario>
// Each scenario talks to the bridge (and, through it, to the native hibari
// nodes the Rust test set up), checks what it gets with assert, and exits 0.
import assert from 'node:assert/strict';
import { Ros, Topic, Service } from 'roslib';

const [url, scenario] = process.argv.slice(2);
setTimeout(() => { console.error(`scenario ${scenario} timed out`); process.exit(2); }, 15000).unref();

export function connect(u = url) {
  const ros = new Ros({ url: u });
  return new Promise((resolve, reject) => {
    ros.on('connection', () => resolve(ros));
    ros.on('error', reject);
  });
}

/** The next `n` messages of a topic. */
export function take(topic, n = 1) {
  return new Promise((resolve) => {
    const got = [];
    topic.subscribe((m) => { got.push(m); if (got.length === n) resolve(n === 1 ? got[0] : got); });
  });
}

const call = (ros, name, serviceType, args, timeout) => new Promise((resolve, reject) =>
  new Service({ ros, name, serviceType }).callService(args, resolve, reject, timeout));

const scenarios = {
  // Cross-check: JS publishes, a native node answers (uppercased) on another topic.
  async echo() {
    for (let round = 0; round < 2; round++) { // the second round after a reconnect
      const ros = await connect();
      const out = new Topic({ ros, name: '/from_js', messageType: 'std_msgs/msg/String' });
      const back = new Topic({ ros, name: '/to_js', messageType: 'std_msgs/msg/String' });
      const got = take(back, 5);
      await new Promise((r) => setTimeout(r, 100));
      for (let i = 0; i < 5; i++) out.publish({ data: `hello ${round} ${i}` });
      const msgs = await got;
      assert.deepEqual(msgs.map((m) => m.data), [0, 1, 2, 3, 4].map((i) => `HELLO ${round} ${i}`));
      ros.close();
    }
  },

  // Encodings: base64, CBOR typed arrays, cbor-raw, PNG, NaN, Time, fragments.
  async encodings() {
    const ros = await connect();
    const T = (name, messageType, extra = {}) => new Topic({ ros, name, messageType, ...extra });
    const json = take(T('/img', 'sensor_msgs/msg/Image'));
    // One connection gets one message per topic, in its highest-ranked
    // compression (rosbridge's merge), so CBOR gets its own connection.
    const ros5 = await connect();
    const cbor = take(new Topic({ ros: ros5, name: '/img', messageType: 'sensor_msgs/msg/Image', compression: 'cbor' }));
    const ros2 = await connect();
    const png = take(new Topic({ ros: ros2, name: '/img', messageType: 'sensor_msgs/msg/Image', compression: 'png' }));
    const ros3 = await connect();
    const raw = take(new Topic({ ros: ros3, name: '/img', compression: 'cbor-raw' }));
    const ros4 = await connect();
    const floats = take(new Topic({ ros: ros4, name: '/floats', messageType: 'std_msgs/msg/Float32MultiArray', compression: 'cbor' }));
    const nan = take(T('/nan', 'std_msgs/msg/Float64'));
    const time = take(T('/time', 'builtin_interfaces/msg/Time'));
    const long = take(T('/long', 'std_msgs/msg/String', { throttle_rate: 0 }));
    // A fragment_size on any message applies to the connection (rosbridge).
    ros.callOnConnection({ op: 'subscribe', id: 'frag', topic: '/long', type: 'std_msgs/msg/String', fragment_size: 50 });
    await new Promise((r) => setTimeout(r, 100));
    for (const r of [ros, ros2, ros3, ros4, ros5]) new Topic({ ros: r, name: '/ready', messageType: 'std_msgs/msg/String' }).publish({ data: 'go' });

    const j = await json;
    assert.equal(j.data, 'AAECAwQF', 'uint8[] as base64');
    assert.equal(j.header.frame_id, 'cam');
    assert.deepEqual(j.header.stamp, { sec: 12, nanosec: 34 });
    const c = await cbor;
    assert.ok(c.data instanceof Uint8Array, `CBOR uint8[] is bytes: ${c.data?.constructor?.name}`);
    assert.deepEqual([...c.data], [0, 1, 2, 3, 4, 5]);
    const p = await png;
    assert.deepEqual(p, j, 'PNG decodes to the JSON message');
    const r = await raw;
    assert.ok(r.bytes instanceof Uint8Array && r.bytes[1] === 1, 'cbor-raw: CDR, little-endian header');
    assert.ok(Number.isInteger(r.secs) && Number.isInteger(r.nsecs));
    const f = await floats;
    assert.ok(f.data instanceof Float32Array, `float32[] is a Float32Array: ${f.data?.constructor?.name}`);
    assert.deepEqual([...f.data], [1.5, -2.25]);
    assert.equal((await nan).data, null, 'NaN is null');
    assert.deepEqual(await time, { sec: 1700000000, nanosec: 5 });
    assert.equal((await long).data, 'x'.repeat(300), 'fragments reassembled');
    for (const x of [ros, ros2, ros3, ros4, ros5]) x.close();
  },

  // Services both ways and rosapi.
  async services() {
    const ros = await connect();
    const r = await call(ros, '/set', 'std_srvs/srv/SetBool', { data: true });
    assert.deepEqual(r, { success: true, message: 'got true' });
    const topics = await new Promise((res, rej) => ros.getTopics(res, rej));
    assert.ok(topics.topics.includes('/rosout'), JSON.stringify(topics));
    const nodes = await new Promise((res, rej) => ros.getNodes(res, rej));
    assert.ok(nodes.includes('/native'), JSON.stringify(nodes));
    const details = await new Promise((res, rej) => ros.getMessageDetails('geometry_msgs/Pose', res, rej));
    const decoded = ros.decodeTypeDefs(details);
    assert.deepEqual(Object.keys(decoded), ['position', 'orientation']);
    await assert.rejects(call(ros, '/missing', 'std_srvs/srv/Trigger', {}, 1), /does not exist/);
    // Serve a service: the native side calls it twice at once.
    let served = 0;
    const done = new Promise((resolve) => {
      new Service({ ros, name: '/js_service', serviceType: 'std_srvs/srv/SetBool' }).advertise((req, res) => {
        res.success = !req.data;
        res.message = `js saw ${req.data}`;
        if (++served === 2) setTimeout(resolve, 100);
        return true;
      });
    });
    await done;
    ros.close();
  },

  // Latched messages reach each of three successive clients; best effort too.
  async latched() {
    for (let i = 0; i < 3; i++) {
      const ros = await connect();
      const m = await take(new Topic({ ros, name: '/latched', messageType: 'std_msgs/msg/String' }));
      assert.equal(m.data, 'kept');
      ros.close();
    }
    const ros = await connect();
    const m = await take(new Topic({ ros, name: '/best_effort', messageType: 'std_msgs/msg/String' }), 3);
    assert.equal(m.length, 3);
    ros.close();
  },

  // Errors reach the client only after it asked for them.
  async status() {
    const ros = await connect();
    let early = 0;
    ros.on('status', () => early++);
    ros.callOnConnection({ op: 'subscribe', topic: '/nobody_here' });
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(early, 0, 'no status before set_level');
    ros.setStatusLevel('error');
    // A status naming an id goes to `status:<id>` (roslibjs' dispatch).
    const status = new Promise((resolve) => ros.on('status:late', resolve));
    ros.callOnConnection({ op: 'subscribe', id: 'late', topic: '/nobody_here' });
    const s = await status;
    assert.equal(s.level, 'error');
    assert.match(s.msg, /cannot infer/);
    ros.close();
  },
};

if (scenarios[scenario]) {
  await scenarios[scenario]();
  console.log(`ok ${scenario}`);
  process.exit(0);
} else if (scenario !== undefined) {
  console.error(`unknown scenario ${scenario}`);
  process.exit(3);
}
