// Zero-copy views (hibari/view.hpp, the generated <Name>View types) as real
// processes; tests/cpp_views.rs builds this against include/ and headers
// hibari-cpp-gen writes for the bundled packages, and runs it:
//   views image-talk TOPIC N   N 1080p rgb8 images, pixels written in place in
//                              the loan; stays until the viewer has left
//   views image-view TOPIC N   a view subscription (and a one-argument one):
//                              each image's pixel span must lie in the
//                              shared-memory mapping the sample arrived in, at
//                              its CDR offset from the header's frame_id,
//                              and every pixel must be right
//   views header-only          no node: PointCloud2 float fields through
//                              ArrayView::strided (both byte orders, at an odd
//                              address), Float64MultiArray's misaligned
//                              doubles, an Image parsed with its pixels'
//                              pages unreadable, refused input; the
//                              Writer's bytes, counting and errors
// Every mode prints what it did, one line each, and exits 0 when all went well.
#include <hibari/hibari.hpp>

#include <sensor_msgs/msg/image.hpp>
#include <sensor_msgs/msg/point_cloud2.hpp>
#include <std_msgs/msg/float32_multi_array.hpp>
#include <std_msgs/msg/float64_multi_array.hpp>

#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "check.hpp"

using namespace std::chrono_literals;
using Image = sensor_msgs::msg::Image;
using ImageView = sensor_msgs::msg::ImageView;
using PointCloud2 = sensor_msgs::msg::PointCloud2;
using PointField = sensor_msgs::msg::PointField;

namespace {

constexpr uint32_t W = 1920, H = 1080;
constexpr size_t PIXELS = size_t{W} * H * 3;

uint8_t pixel(size_t p, int frame) { return static_cast<uint8_t>(p * 7 + static_cast<size_t>(frame)); }

/// Image i as the camera sends it, pixels excepted.
Image frame_of(int i) {
  Image frame;
  frame.header.stamp.sec = i;
  frame.header.frame_id = "camera";
  frame.height = H;
  frame.width = W;
  frame.encoding = "rgb8";
  frame.step = W * 3;
  return frame;
}

int image_talk(const std::string &topic, int n) {
  auto node = std::make_shared<hibari::Node>("cpp_hd_camera");
  auto pub = node->create_publisher<Image>(topic, hibari::QoS(n).reliable());
  if (!pub->wait_for_subscriptions(1, 30s)) return say("no viewer"), 1;
  // The viewer is another process: no subscription here takes objects.
  if (pub->get_intra_process_subscription_count() != 0) return say("the viewer counted as in this process"), 1;
  for (int i = 1; i <= n; i++) {
    auto loan = pub->loan_with_array(frame_of(i), &Image::data, PIXELS);
    uint8_t *px = loan.bytes();
    for (size_t p = 0; p < PIXELS; p++) px[p] = pixel(p, i);
    loan.publish();
  }
  say("sent " + std::to_string(n) + " images");
  // The samples live in this process's memory: stay until the viewer left.
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  while (pub->get_subscription_count() > 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(10ms);
  }
  return 0;
}

/// The line of /proc/self/maps whose range holds `p`.
struct Mapping {
  uintptr_t lo = 0, hi = 0;
  std::string perms, path;
  bool holds(const void *p, size_t n) const {
    const auto a = reinterpret_cast<uintptr_t>(p);
    return a >= lo && a <= hi && n <= hi - a;
  }
};

std::optional<Mapping> mapping_of(const void *p) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    std::istringstream in(line);
    std::string range, offset, dev, inode;
    Mapping m;
    in >> range >> m.perms >> offset >> dev >> inode;
    std::getline(in >> std::ws, m.path);
    const size_t dash = range.find('-');
    m.lo = static_cast<uintptr_t>(std::stoull(range.substr(0, dash), nullptr, 16));
    m.hi = static_cast<uintptr_t>(std::stoull(range.substr(dash + 1), nullptr, 16));
    if (m.holds(p, 1)) return m;
  }
  return std::nullopt;
}

int image_view(const std::string &topic, int n) {
  auto node = std::make_shared<hibari::Node>("cpp_hd_viewer");
  // Where the pixels start in the CDR, from the start of frame_id's bytes:
  // 4 (encapsulation) + 8 (stamp) + 4 (frame_id's length) before those.
  const size_t data_at = hibari::cdr::serialized_size(frame_of(1)) - 16;
  int seen = 0, seen_plain = 0;
  auto check = [&](const ImageView &view, const hibari::MessageInfo &info) {
    seen++;
    const int i = view.header.stamp.sec;
    const bool fields = view.width == W && view.height == H && view.step == W * 3 && view.encoding == "rgb8" &&
                        view.header.frame_id == "camera" && view.data.size() == PIXELS && info.sequence > 0;
    // In place: the pixels are in the shared mapping the sample came in
    // (the publisher's memfd, mapped read-only and shared), at their CDR
    // offset from the frame_id bytes, which are in that mapping too.
    const auto m = mapping_of(view.data.data());
    const bool in_place = m && m->perms.size() == 4 && m->perms[3] == 's' && m->path.rfind("/memfd:", 0) == 0 &&
                          m->holds(view.data.data(), view.data.size()) &&
                          m->holds(view.header.frame_id.data(), view.header.frame_id.size()) &&
                          view.data.data() == reinterpret_cast<const uint8_t *>(view.header.frame_id.data()) + data_at;
    if (!in_place) {
      say(m ? "pixels at " + std::to_string(reinterpret_cast<uintptr_t>(view.data.data())) + " in " + m->perms + " " +
                  m->path
            : std::string("pixels in no mapping"));
    }
    bool pixels = fields;
    const uint8_t *px = view.data.data();
    for (size_t p = 0; pixels && p < view.data.size(); p++) pixels = px[p] == pixel(p, i);
    if (!fields || !in_place || !pixels) failures++;
    say("image " + std::to_string(i) + (fields ? "" : " WRONG FIELDS") + (in_place ? " in place" : " COPIED") +
        (pixels ? " ok" : " WRONG PIXELS"));
    if (seen == n && seen_plain == n) hibari::shutdown();
  };
  auto sub = node->create_view_subscription<Image>(topic, hibari::QoS(n).reliable(), check);
  auto plain = node->create_view_subscription<Image>(topic, hibari::QoS(n).reliable(), [&](const ImageView &view) {
    seen_plain++;
    if (view.data.size() != PIXELS || view.data[PIXELS - 1] != pixel(PIXELS - 1, view.header.stamp.sec)) failures++;
    if (seen == n && seen_plain == n) hibari::shutdown();
  });
  say("listening");
  hibari::spin(node);
  say("viewed " + std::to_string(seen) + " and " + std::to_string(seen_plain));
  return failures == 0 && seen == n && seen_plain == n ? 0 : 1;
}

// header-only

void put_f32(uint8_t *at, float v, bool big) {
  uint8_t b[4];
  std::memcpy(b, &v, 4);
  if (big == hibari::cdr::detail::host_is_little_endian()) std::swap(b[0], b[3]), std::swap(b[1], b[2]);
  std::memcpy(at, b, 4);
}

void put_f64(uint8_t *at, double v, bool big) {
  uint8_t b[8];
  std::memcpy(b, &v, 8);
  if (big == hibari::cdr::detail::host_is_little_endian()) {
    for (int k = 0; k < 4; k++) std::swap(b[k], b[7 - k]);
  }
  std::memcpy(at, b, 8);
}

/// x, y, z (float32) and t (float64, at 12: misaligned for a double in
/// every point) of 2 x 100 points, 20 bytes each, in one byte order.
PointCloud2 cloud(bool big) {
  PointCloud2 c;
  c.header.frame_id = "lidar";
  c.height = 2;
  c.width = 100;
  const char *names[] = {"x", "y", "z", "t"};
  const uint32_t offsets[] = {0, 4, 8, 12};
  for (int f = 0; f < 4; f++) {
    PointField field;
    field.name = names[f];
    field.offset = offsets[f];
    field.datatype = f < 3 ? PointField::FLOAT32 : PointField::FLOAT64;
    field.count = 1;
    c.fields.push_back(field);
  }
  c.is_bigendian = big;
  c.point_step = 20;
  c.row_step = c.point_step * c.width;
  c.is_dense = true;
  c.data.resize(size_t{c.row_step} * c.height);
  for (size_t p = 0; p < 200; p++) {
    uint8_t *at = c.data.data() + p * 20;
    put_f32(at, 0.5f * static_cast<float>(p), big);
    put_f32(at + 4, -1.25f * static_cast<float>(p), big);
    put_f32(at + 8, 3.0f + static_cast<float>(p), big);
    put_f64(at + 12, 1e9 + 0.001 * static_cast<double>(p), big);
  }
  return c;
}

void check_cloud(const uint8_t *cdr, size_t len, bool big) {
  const auto view = sensor_msgs::msg::PointCloud2View::parse(cdr, len);
  EXPECT(view.header.frame_id == "lidar" && view.fields.size() == 4 && view.is_bigendian == big);
  const size_t n = size_t{view.width} * view.height;
  int found = 0;
  for (const sensor_msgs::msg::PointFieldView &field : view.fields) {
    if (field.datatype == PointField::FLOAT32) {
      const auto values = hibari::ArrayView<float>::strided(view.data, field.offset, n, view.point_step, !view.is_bigendian);
      EXPECT(values.size() == n && !values.as_span());  // strided: never a Span<const float>
      for (size_t p = 0; p < n; p++) {
        const float want = field.name == "x"   ? 0.5f * static_cast<float>(p)
                           : field.name == "y" ? -1.25f * static_cast<float>(p)
                                               : 3.0f + static_cast<float>(p);
        if (values[p] != want) {
          EXPECT(values[p] == want);
          break;
        }
      }
      found++;
    } else if (field.datatype == PointField::FLOAT64 && field.name == "t") {
      const auto t = hibari::ArrayView<double>::strided(view.data, field.offset, n, view.point_step, !view.is_bigendian);
      size_t p = 0;
      for (const double v : t) EXPECT(v == 1e9 + 0.001 * static_cast<double>(p++));
      EXPECT(p == n);
      found++;
    }
  }
  EXPECT(found == 4);
  try {  // the last point's x would end past the bytes
    (void)hibari::ArrayView<float>::strided(view.data, view.point_step * (n - 1) + 17, 1, 4);
    EXPECT(false);
  } catch (const std::out_of_range &) {
  }
}

int header_only() {
  // PointCloud2 fields, both byte orders, at an aligned and an odd address.
  for (const bool big : {false, true}) {
    const PointCloud2 c = cloud(big);
    const std::vector<uint8_t> cdr = hibari::cdr::to_cdr(c);
    check_cloud(cdr.data(), cdr.size(), big);
    std::vector<uint8_t> odd(cdr.size() + 1);
    std::memcpy(odd.data() + 1, cdr.data(), cdr.size());
    check_cloud(odd.data() + 1, cdr.size(), big);
    EXPECT(sensor_msgs::msg::PointCloud2View::parse(cdr.data(), cdr.size()).to_message() == c);
  }
  say("point cloud fields ok");

  // The alignment rule: float32 data lands 4-aligned in an 8-aligned buffer
  // (a Span<const float> in place); float64 data at 4 mod 8 (no Span: loads).
  std_msgs::msg::Float32MultiArray floats;
  floats.data = {1.5f, -2.5f, 3.25f};
  const std::vector<uint8_t> f32 = hibari::cdr::to_cdr(floats);
  const auto fv = std_msgs::msg::Float32MultiArrayView::parse(f32.data(), f32.size());
  const auto span = fv.data.as_span();
  EXPECT(span && span->size() == 3 && (*span)[2] == 3.25f);
  EXPECT(span && reinterpret_cast<const uint8_t *>(span->data()) >= f32.data() &&
         reinterpret_cast<const uint8_t *>(span->data() + 3) <= f32.data() + f32.size());
  std_msgs::msg::Float64MultiArray doubles;
  doubles.data = {0.1, -1e300, 42.0, 7.0};
  const std::vector<uint8_t> f64 = hibari::cdr::to_cdr(doubles);
  const auto dv = std_msgs::msg::Float64MultiArrayView::parse(f64.data(), f64.size());
  EXPECT(reinterpret_cast<uintptr_t>(f64.data()) % 8 == 0);
  EXPECT(reinterpret_cast<uintptr_t>(dv.data.bytes().data()) % 8 == 4 && !dv.data.as_span());
  EXPECT(dv.data.size() == 4 && dv.data[0] == 0.1 && dv.data.at(1) == -1e300 && dv.data.back() == 7.0);
  EXPECT(dv.data.to_vector() == doubles.data && dv.to_message() == doubles);
  say("alignment ok");

  // Parsing an Image reads none of its pixels: their pages are unreadable
  // while it parses.
  const long page_size = sysconf(_SC_PAGESIZE);
  const size_t page = page_size > 0 ? static_cast<size_t>(page_size) : 4096;
  Image img = frame_of(9);
  img.data.resize(PIXELS);
  for (size_t p = 0; p < PIXELS; p++) img.data[p] = pixel(p, 9);
  const std::vector<uint8_t> cdr = hibari::cdr::to_cdr(img);
  const size_t data_at = cdr.size() - PIXELS;
  const size_t lead = (data_at + page - 1) / page * page;  // the pixels start on a page
  const size_t total = lead + (PIXELS + page - 1) / page * page;
  void *mem = mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  EXPECT(mem != MAP_FAILED);
  if (mem == MAP_FAILED) return 1;
  uint8_t *base = static_cast<uint8_t *>(mem) + (lead - data_at);
  std::memcpy(base, cdr.data(), cdr.size());
  uint8_t *pixels = static_cast<uint8_t *>(mem) + lead;
  const size_t hidden = PIXELS / page * page;
  EXPECT(mprotect(pixels, hidden, PROT_NONE) == 0);
  const ImageView view = ImageView::parse(base, cdr.size());
  EXPECT(view.data.data() == pixels && view.data.size() == PIXELS && view.width == W && view.encoding == "rgb8");
  EXPECT(mprotect(pixels, hidden, PROT_READ) == 0);
  EXPECT(view.to_message() == img);
  munmap(mem, total);
  say("image parsed without reading its pixels");

  // Bad input throws DecodeError through the view too, never reads past it.
  int refused = 0;
  for (size_t cut = 0; cut < data_at + 8; cut++) {
    try {
      (void)ImageView::parse(cdr.data(), cut);
    } catch (const hibari::cdr::DecodeError &) {
      refused++;
    }
  }
  std::vector<uint8_t> lying(cdr.begin(), cdr.begin() + static_cast<std::ptrdiff_t>(data_at));
  lying[data_at - 1] = 0x7f;  // a pixel count of ~2^31 with no pixels
  try {
    (void)ImageView::parse(lying.data(), lying.size());
    EXPECT(false);
  } catch (const hibari::cdr::DecodeError &e) {
    EXPECT(std::string(e.what()).find("field `data`") != std::string::npos);
  }
  EXPECT(refused == static_cast<int>(data_at + 8));
  say("bad input refused");

  // The Writer counts, appends to a vector and writes at an address alike:
  // the same bytes (padding zeroed over whatever the memory held), the
  // same size; what CDR cannot carry, or a buffer too small, is an
  // EncodeError naming the field.
  {
    const auto fields = [](hibari::cdr::Writer &w) {
      w.write(uint8_t{1});
      w.write(2.0);  // after 7 bytes of padding
      w.write_string("ab", hibari::cdr::unbounded, "s");
      w.write_sequence(std::vector<uint16_t>{3, 4}, 2, "v");
    };
    std::vector<uint8_t> out;
    hibari::cdr::Writer appending(out);
    fields(appending);
    uint8_t raw[64];
    std::memset(raw, 0xaa, sizeof raw);
    hibari::cdr::Writer at(raw, sizeof raw);
    fields(at);
    hibari::cdr::Writer counting;
    fields(counting);
    const std::vector<uint8_t> want = {0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x40,
                                       3, 0, 0, 0, 'a', 'b', 0, 0, 2, 0, 0, 0, 3, 0, 4, 0};
    EXPECT(out == want);
    EXPECT(at.size() == want.size() && std::equal(want.begin(), want.end(), raw));
    EXPECT(counting.size() == want.size());

    const auto refuses = [](const std::function<void(hibari::cdr::Writer &)> &write, const char *words) {
      int seen = 0;
      std::vector<uint8_t> vec;
      uint8_t buf[16];
      hibari::cdr::Writer writers[] = {hibari::cdr::Writer(), hibari::cdr::Writer(vec),
                                       hibari::cdr::Writer(buf, sizeof buf)};
      for (auto &w : writers) {
        try {
          write(w);
        } catch (const hibari::cdr::EncodeError &e) {
          seen += std::string(e.what()).find(words) != std::string::npos;
        }
      }
      return seen;
    };
    EXPECT(refuses([](auto &w) { w.write_sequence(std::vector<int32_t>(3), 2, "ranges"); },
                   "field `ranges`: holds 3 elements but its type allows at most 2") == 3);
    EXPECT(refuses([](auto &w) { w.write_string("abcd", 3, "label"); },
                   "field `label`: holds 4 bytes but its type allows at most 3") == 3);
    EXPECT(refuses([](auto &w) { w.write_string(std::string("a\0b", 3), hibari::cdr::unbounded, "name"); },
                   "field `name`: contains a NUL byte") == 3);
    // Only the 16-byte buffer runs out: 4 (header) + 4 + 4 (padding) + 8.
    EXPECT(refuses(
               [](auto &w) {
                 w.write(uint32_t{7});
                 w.write(1.0);
               },
               "needs more than the 16 bytes") == 1);
  }
  say("encoding checked");
  say(failures == 0 ? "header-only ok" : "header-only FAILED");
  return failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char **argv) {
  if (argc < 2) return std::fprintf(stderr, "usage: views MODE ...\n"), 2;
  const std::string mode = argv[1];
  try {
    if (mode == "header-only") return header_only();
    if (argc < 3) return std::fprintf(stderr, "%s needs a topic\n", argv[1]), 2;
    hibari::init(argc, argv);
    const std::string topic = argv[2];
    const int n = argc > 3 ? std::atoi(argv[3]) : 3;
    if (mode == "image-talk") return image_talk(topic, n);
    if (mode == "image-view") return image_view(topic, n);
  } catch (const std::exception &e) {
    std::printf("exception: %s\n", e.what());
    return 1;
  }
  return std::fprintf(stderr, "unknown mode %s\n", argv[1]), 2;
}
