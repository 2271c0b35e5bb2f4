// The C++ side of python/bench/e4.py (EXPERIMENTS.md E4), the twin of
// python/rust/examples/e4_rust.rs: the time of the publish call and the
// end-to-end latency of a sensor_msgs/Image of each size, in one process or
// between two, reliable or best effort. Prints one JSON object per series,
// with every sample (µs), for e4.py to summarize — the same protocol, roles
// and lines as e4_rust ("impl": "cpp").
//
//   e4_cpp [--sizes 1024,4194304] [--mode thread|same|procs] [--qos reliable|best_effort]
//          [--variant publish|loan] [--iterations N]
//   e4_cpp sub --size N --count N --qos Q --topic T      (the subscriber process of `procs`)
//
// Each iteration builds the message from the application's pixel buffer (a
// new Image whose data is a copy of the pixels: the one copy a C++
// application makes, as e4_rust's clone() and Python's publish make one),
// hands it to Publisher::publish(T &&) (moved, as e4_rust's publish moves
// its Image), and waits for the
// callback before the next (closed loop, no queueing). "publish" is the
// build and the call; "e2e" ends at the first clock reading in the callback.
// `thread`: a SingleThreadedExecutor spins on its own thread; `same`: the
// publishing thread runs spin_once; `procs`: the subscriber is another
// process (this program, `sub`), on the default context, whose serialized
// subscription reads the frame in place (as e4_rust's view subscription and
// Python's numpy view do), stamps its reception against header.stamp
// (CLOCK_REALTIME) and acknowledges it with a byte on its stdout. In one
// process the context is isolated and the subscription a typed one, whose
// callback takes `const Image &`: the publisher's object itself, handed
// over through the C ABI as Rust hands its value over (nothing encoded);
// between processes publish encodes it straight into the shared memory
// the subscriber reads. `--variant loan` lends the message from the publisher
// (loan_with_array, the data a hole) and copies the pixels into it: one copy
// in all, as e4_rust's loan_message and Python's loan_image + np.copyto.
#include <fcntl.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <hibari/hibari.hpp>
#include <sensor_msgs/msg/image.hpp>

using Image = sensor_msgs::msg::Image;
using Clock = std::chrono::steady_clock;

namespace {

const std::vector<size_t> DEFAULT_SIZES = {1024, 65536, 1048576, 4194304, 6220800};

size_t iterations(size_t size) { return std::clamp<size_t>(500000000 / size, 100, 2000); }

hibari::QoS qos(const std::string &name) {
  if (name == "reliable") return hibari::QoS(10).reliable();
  if (name == "best_effort") return hibari::QoS(10).best_effort();
  throw std::runtime_error("--qos reliable|best_effort, not `" + name + "`");
}

/// Pins the calling thread (and what it starts later) to the CPU e4.py gave
/// `role` (0: publisher, 1: subscriber) in HIBARI_E4_CPUS=pub,sub; unset:
/// the kernel places (python/bench/placement.py says why this matters).
void pin(size_t role) {
  const char *env = std::getenv("HIBARI_E4_CPUS");
  std::vector<int> cpus;
  std::stringstream s(env ? env : "");
  for (std::string c; std::getline(s, c, ',');) {
    try {
      cpus.push_back(std::stoi(c));
    } catch (const std::exception &) {
    }
  }
  if (cpus.size() != 2) return;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpus[role], &set);
  sched_setaffinity(0, sizeof(set), &set);
}

uint64_t now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

/// CPU time (user + system, µs resolution) and context switches (voluntary +
/// involuntary) of this process so far, every thread counted, as e4_rust reads them.
struct Usage {
  double cpu_s = 0;
  long ctx = 0;
  static Usage now() {
    rusage ru{};
    if (getrusage(RUSAGE_SELF, &ru) != 0) return {};
    auto s = [](const timeval &t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6; };
    return {s(ru.ru_utime) + s(ru.ru_stime), ru.ru_nvcsw + ru.ru_nivcsw};
  }
  Usage since(const Usage &earlier) const { return {cpu_s - earlier.cpu_s, ctx - earlier.ctx}; }
};

/// The number after `"key": ` in a JSON line of ours (0 when absent).
double number_after(const std::string &line, const std::string &key) {
  const size_t at = line.rfind("\"" + key + "\": ");
  return at == std::string::npos ? 0.0 : std::atof(line.c_str() + at + key.size() + 4);
}

std::string list(const std::vector<double> &v) {
  std::string out = "[";
  char buf[32];
  for (size_t i = 0; i < v.size(); i++) {
    std::snprintf(buf, sizeof buf, "%s%.2f", i ? "," : "", v[i]);
    out += buf;
  }
  return out + "]";
}

double us(Clock::duration d) { return std::chrono::duration<double, std::micro>(d).count(); }

void set_stamp(Image &image, uint64_t stamp_ns) {
  image.header.stamp.sec = static_cast<int32_t>(stamp_ns / 1000000000u);
  image.header.stamp.nanosec = static_cast<uint32_t>(stamp_ns % 1000000000u);
}

/// Publishes one frame of `pixels`: built and published, or lent and filled.
void send(hibari::Publisher<Image> &publisher, const std::vector<uint8_t> &pixels, uint64_t stamp_ns, bool loan) {
  const auto size = static_cast<uint32_t>(pixels.size());
  Image image;
  image.height = 1;
  image.width = size;
  image.encoding = "mono8";
  image.step = size;
  set_stamp(image, stamp_ns);
  if (!loan) {
    image.data.assign(pixels.begin(), pixels.end());
    publisher.publish(std::move(image));
    return;
  }
  auto lent = publisher.loan_with_array(image, &Image::data, pixels.size());
  std::memcpy(lent.bytes(), pixels.data(), pixels.size());
  lent.publish();
}

/// A one-slot mailbox: the callback's clock reading, for the publishing thread.
template <class T> class Mailbox {
public:
  void put(T v) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      items_.push_back(v);
    }
    ready_.notify_one();
  }
  /// The next item, or throws after `timeout` without one.
  T take(std::chrono::seconds timeout) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (!ready_.wait_for(lock, timeout, [&] { return head_ < items_.size(); })) {
      throw std::runtime_error("no callback within " + std::to_string(timeout.count()) + " s");
    }
    return items_[head_++];
  }

private:
  std::mutex mutex_;
  std::condition_variable ready_;
  std::vector<T> items_;
  size_t head_ = 0;
};

hibari::InitOptions init_options(bool isolated) {
  hibari::InitOptions o;
  o.isolated = isolated;
  o.install_signal_handlers = false;
  return o;
}

std::string one_process(size_t size, const std::string &mode, const hibari::QoS &q, size_t n, bool loan) {
  hibari::init(0, nullptr, init_options(true));
  std::string line;
  {
    auto node = std::make_shared<hibari::Node>("e4");
    Mailbox<Clock::time_point> box;
    auto sub = node->create_subscription<Image>("/e4", q, [&box](const Image &msg) {
      const auto now = Clock::now();
      const uint8_t *first = msg.data.data();
      asm volatile("" : : "r"(first) : "memory");  // the data is there (black_box)
      box.put(now);
    });
    auto publisher = node->create_publisher<Image>("/e4", q);
    hibari::executors::SingleThreadedExecutor executor;
    executor.add_node(node);
    std::thread spinner;
    if (mode == "thread") {
      spinner = std::thread([&executor] {
        pin(1);
        executor.spin();
      });
    }
    const std::vector<uint8_t> pixels(size, 7);
    const size_t warmup = n / 10 + 5;
    std::vector<double> publish, e2e;
    publish.reserve(n);
    e2e.reserve(n);
    const Usage usage0 = Usage::now();
    const auto wall = Clock::now();
    for (size_t i = 0; i < warmup + n; i++) {
      const auto t0 = Clock::now();
      send(*publisher, pixels, 0, loan);
      const auto t1 = Clock::now();
      if (!spinner.joinable()) executor.spin_once(std::chrono::seconds(5));
      const auto t2 = box.take(std::chrono::seconds(5));
      if (i >= warmup) {
        publish.push_back(us(t1 - t0));
        e2e.push_back(us(t2 - t0));
      }
    }
    const Usage used = Usage::now().since(usage0);
    const double secs = std::chrono::duration<double>(Clock::now() - wall).count();
    executor.cancel();
    if (spinner.joinable()) spinner.join();
    char head[256];
    std::snprintf(head, sizeof head,
                  "{\"impl\": \"cpp\", \"loan\": %s, \"mode\": \"%s\", \"size\": %zu, \"n\": %zu, \"cpu_pub_s\": %.6f, "
                  "\"cpu_sub_s\": 0, \"ctx_switches\": %ld, \"duration_s\": %.3f, ",
                  loan ? "true" : "false", mode.c_str(), size, n, used.cpu_s, used.ctx, secs);
    line = std::string(head) + "\"publish_us\": " + list(publish) + ", \"e2e_us\": " + list(e2e) + "}";
  }
  hibari::shutdown();
  return line;
}

/// Reads exactly `n` bytes from `fd`, or throws.
void read_exact(int fd, char *buf, size_t n) {
  while (n > 0) {
    const ssize_t got = ::read(fd, buf, n);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) throw std::runtime_error("the subscriber process stopped");
    buf += got;
    n -= static_cast<size_t>(got);
  }
}

/// One line from `fd` (without the newline), read a byte at a time: what
/// follows stays in the pipe.
std::string read_line(int fd) {
  std::string line;
  char c = 0;
  while (::read(fd, &c, 1) == 1 && c != '\n') line += c;
  return line;
}

std::string self_exe() {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) throw std::runtime_error("cannot find this program (/proc/self/exe)");
  return std::string(buf, static_cast<size_t>(n));
}

std::string two_processes(size_t size, const std::string &qos_name, size_t n, bool loan) {
  const std::string topic = "/e4_cpp_" + std::to_string(getpid());
  const size_t warmup = n / 10 + 5;
  const size_t count = warmup + n;
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) throw std::runtime_error("pipe failed");
  const std::string exe = self_exe(), size_s = std::to_string(size), count_s = std::to_string(count);
  const char *argv[] = {exe.c_str(), "sub", "--size", size_s.c_str(), "--count", count_s.c_str(),
                        "--qos", qos_name.c_str(), "--topic", topic.c_str(), nullptr};
  const pid_t child = fork();
  if (child < 0) throw std::runtime_error("fork failed");
  if (child == 0) {
    dup2(pipe_fds[1], 1);
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    execv(exe.c_str(), const_cast<char *const *>(argv));
    _exit(127);
  }
  close(pipe_fds[1]);
  const int out = pipe_fds[0];
  std::string line = read_line(out);
  if (line != "ready") {
    close(out);
    waitpid(child, nullptr, 0);
    throw std::runtime_error("the subscriber said \"" + line + "\"");
  }
  hibari::init(0, nullptr, init_options(false));
  std::vector<double> publish;
  Usage used;
  double secs = 0;
  {
    auto node = std::make_shared<hibari::Node>("e4_pub");
    auto publisher = node->create_publisher<Image>(topic, qos(qos_name));
    if (!publisher->wait_for_subscriptions(1, std::chrono::seconds(10))) {
      throw std::runtime_error("the subscriber process did not match");
    }
    const std::vector<uint8_t> pixels(size, 7);
    publish.reserve(n);
    char ack = 0;
    const Usage usage0 = Usage::now();
    const auto wall = Clock::now();
    for (size_t i = 0; i < count; i++) {
      const auto t0 = Clock::now();
      send(*publisher, pixels, now_ns(), loan);
      const auto t1 = Clock::now();
      read_exact(out, &ack, 1);
      if (i >= warmup) publish.push_back(us(t1 - t0));
    }
    used = Usage::now().since(usage0);
    secs = std::chrono::duration<double>(Clock::now() - wall).count();
    line = read_line(out);
    close(out);
    int status = 0;
    waitpid(child, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) throw std::runtime_error("the subscriber process failed");
  }
  hibari::shutdown();
  // The subscriber's line: {"e2e_us": [...], "cpu_s": x, "ctx": y}; drop the warm-up.
  const size_t open = line.find('['), close_ = line.find(']');
  if (open == std::string::npos || close_ == std::string::npos) throw std::runtime_error("bad subscriber line");
  std::vector<double> e2e;
  std::stringstream items(line.substr(open + 1, close_ - open - 1));
  size_t k = 0;
  for (std::string v; std::getline(items, v, ',');) {
    if (k++ >= warmup) e2e.push_back(std::stod(v));
  }
  const double cpu_sub = number_after(line, "cpu_s");
  const long ctx = used.ctx + static_cast<long>(number_after(line, "ctx"));
  char head[256];
  std::snprintf(head, sizeof head,
                "{\"impl\": \"cpp\", \"loan\": %s, \"mode\": \"procs\", \"size\": %zu, \"n\": %zu, \"cpu_pub_s\": %.6f, "
                "\"cpu_sub_s\": %.6f, \"ctx_switches\": %ld, \"duration_s\": %.3f, ",
                loan ? "true" : "false", size, n, used.cpu_s, cpu_sub, ctx, secs);
  return std::string(head) + "\"publish_us\": " + list(publish) + ", \"e2e_us\": " + list(e2e) + "}";
}

/// The subscriber process of `procs`.
int subscriber(size_t count, const std::string &qos_name, const std::string &topic) {
  hibari::init(0, nullptr, init_options(false));
  auto node = std::make_shared<hibari::Node>("e4_sub");
  Mailbox<double> box;
  // A serialized subscription: the frame is read where it lies in shared
  // memory, as e4_rust's view subscription (and Python's numpy view) reads
  // it — its fields parsed in place, the pixels not copied.
  auto on_frame = [&box](hibari::ByteSpan cdr) {
    const uint64_t now = now_ns();
    hibari::cdr::Reader r(cdr.data(), cdr.size());
    int32_t sec = 0;
    uint32_t nanosec = 0, height = 0, width = 0, step = 0, len = 0;
    uint8_t bigendian = 0;
    std::string frame_id, encoding;
    r.read(sec, "sec");
    r.read(nanosec, "nanosec");
    r.read_string(frame_id, hibari::cdr::unbounded, "frame_id");
    r.read(height, "height");
    r.read(width, "width");
    r.read_string(encoding, hibari::cdr::unbounded, "encoding");
    r.read(bigendian, "is_bigendian");
    r.read(step, "step");
    r.read(len, "data");
    if (len > r.remaining()) throw std::runtime_error("truncated image");
    const uint8_t *first = cdr.data() + r.position();
    asm volatile("" : : "r"(first) : "memory");  // the data is there (black_box)
    const uint64_t stamp = static_cast<uint64_t>(sec) * 1000000000u + nanosec;
    box.put(static_cast<double>(now > stamp ? now - stamp : 0) / 1e3);
    const char dot = '.';
    if (::write(1, &dot, 1) != 1) std::fprintf(stderr, "e4_cpp sub: stdout closed\n");
  };
  auto sub = node->create_serialized_subscription(topic, Image::TYPE_NAME, qos(qos_name), on_frame);
  hibari::executors::SingleThreadedExecutor executor;
  executor.add_node(node);
  std::thread spinner([&executor] { executor.spin(); });
  std::printf("ready\n");
  std::fflush(stdout);
  const Usage usage0 = Usage::now();
  std::vector<double> e2e;
  e2e.reserve(count);
  int status = 0;
  try {
    for (size_t i = 0; i < count; i++) e2e.push_back(box.take(std::chrono::seconds(20)));
  } catch (const std::exception &e) {
    std::fprintf(stderr, "e4_cpp sub: %s\n", e.what());
    status = 1;
  }
  executor.cancel();
  spinner.join();
  const Usage used = Usage::now().since(usage0);
  std::printf("{\"e2e_us\": %s, \"cpu_s\": %.6f, \"ctx\": %ld}\n", list(e2e).c_str(), used.cpu_s, used.ctx);
  std::fflush(stdout);
  hibari::shutdown();
  return status;
}

}  // namespace

int main(int argc, char **argv) {
  try {
    std::vector<std::string> args(argv, argv + argc);
    auto value = [&](const std::string &flag) -> std::string {
      for (size_t i = 1; i + 1 < args.size(); i++) {
        if (args[i] == flag) return args[i + 1];
      }
      return "";
    };
    auto number = [&](const std::string &flag) {
      const std::string v = value(flag);
      if (v.empty()) throw std::runtime_error(flag + " is needed");
      return static_cast<size_t>(std::stoull(v));
    };
    const std::string qos_name = value("--qos").empty() ? "reliable" : value("--qos");
    qos(qos_name);  // checks the name
    if (args.size() > 1 && args[1] == "sub") {
      const std::string topic = value("--topic");
      if (topic.empty()) throw std::runtime_error("--topic is needed");
      number("--size");
      pin(1);
      return subscriber(number("--count"), qos_name, topic);
    }
    pin(0);
    std::vector<size_t> sizes = DEFAULT_SIZES;
    if (!value("--sizes").empty()) {
      sizes.clear();
      std::stringstream s(value("--sizes"));
      for (std::string v; std::getline(s, v, ',');) sizes.push_back(static_cast<size_t>(std::stoull(v)));
    }
    std::vector<std::string> modes = {"thread", "same"};
    if (!value("--mode").empty()) modes = {value("--mode")};
    const size_t fixed = value("--iterations").empty() ? 0 : number("--iterations");
    const bool loan = value("--variant") == "loan";
    for (const auto &mode : modes) {
      if (mode != "thread" && mode != "same" && mode != "procs") {
        throw std::runtime_error("--mode thread|same|procs, not `" + mode + "`");
      }
      for (const size_t size : sizes) {
        const size_t n = fixed ? fixed : iterations(size);
        const std::string line =
            mode == "procs" ? two_processes(size, qos_name, n, loan) : one_process(size, mode, qos(qos_name), n, loan);
        std::printf("%s\n", line.c_str());
        std::fflush(stdout);
      }
    }
    return 0;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "e4_cpp: %s\n", e.what());
    return 1;
  }
}
