// hibari C++: what comes with a sample (MessageInfo, rclcpp's) and the
// bytes a serialized subscription reads in place (ByteSpan).
#pragma once

#include <hibari.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <iterator>

namespace hibari {

/// What came with a sample.
struct MessageInfo {
  /// Its place in its publisher's stream: 1, 2, 3…
  uint64_t sequence = 0;
  /// When it was published / received, ns since the UNIX epoch.
  int64_t source_timestamp_ns = 0;
  int64_t reception_timestamp_ns = 0;
  /// The publisher's id (a ROS 2 GID).
  std::array<uint8_t, 16> publisher_id{};
  /// Samples of that publisher lost just before this one.
  uint64_t lost_before = 0;

  static MessageInfo from_c(const hibari_sample_info_t &i) {
    MessageInfo m;
    m.sequence = i.sequence;
    m.source_timestamp_ns = i.source_timestamp_ns;
    m.reception_timestamp_ns = i.reception_timestamp_ns;
    std::copy(std::begin(i.publisher_id), std::end(i.publisher_id), m.publisher_id.begin());
    m.lost_before = i.lost_before;
    return m;
  }
};

/// Bytes borrowed for a callback's duration (a read-only span).
struct ByteSpan {
  const uint8_t *data_ = nullptr;
  size_t size_ = 0;
  const uint8_t *data() const { return data_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const uint8_t *begin() const { return data_; }
  const uint8_t *end() const { return data_ + size_; }
  uint8_t operator[](size_t i) const { return data_[i]; }
};

}  // namespace hibari
