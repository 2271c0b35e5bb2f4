// What the C++ test programs share: EXPECT counts a failed condition (the
// program prints it and exits 1 at the end), say() prints a line the Rust
// test waits for.
#pragma once

#include <cstdio>
#include <string>

namespace {

int failures = 0;
#define EXPECT(cond)                                                                               \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      std::printf("FAILED %s:%d: %s\n", __FILE__, __LINE__, #cond);                                \
      failures++;                                                                                  \
    }                                                                                              \
  } while (0)

void say(const std::string &line) {
  std::printf("%s\n", line.c_str());
  std::fflush(stdout);
}

}  // namespace
