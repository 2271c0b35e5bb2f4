// A minimal JSON reader and writer for the crosscheck's line protocol:
// objects, arrays, strings (with \u escapes), numbers, true/false/null.
// Requests are small and flat; this is not a general-purpose parser.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace crosscheck::json {

struct Value {
  enum class Kind { Null, Bool, Number, String, Array, Object };
  Kind kind = Kind::Null;
  bool boolean = false;
  double number = 0;
  std::string string;
  std::vector<Value> array;
  std::vector<std::pair<std::string, Value>> object;

  /// The member `key` of an object, or nullptr.
  const Value *get(const std::string &key) const {
    for (const auto &kv : object) {
      if (kv.first == key) {
        return &kv.second;
      }
    }
    return nullptr;
  }

  /// The string member `key`; throws if it is missing or not a string.
  const std::string &str(const std::string &key) const {
    const Value *v = get(key);
    if (v == nullptr || v->kind != Kind::String) {
      throw std::runtime_error("missing string `" + key + "`");
    }
    return v->string;
  }
};

class Parser {
 public:
  explicit Parser(const std::string &text) : s_(text) {}

  Value parse() {
    Value v = value(0);
    skip_ws();
    if (i_ != s_.size()) {
      fail("trailing characters");
    }
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string &what) const {
    throw std::runtime_error("bad request: " + what + " at character " + std::to_string(i_));
  }

  void skip_ws() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) {
      ++i_;
    }
  }

  bool eat(char c) {
    skip_ws();
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }

  void expect(char c) {
    if (!eat(c)) {
      fail(std::string("expected '") + c + "'");
    }
  }

  bool literal(const char *word) {
    const std::string w(word);
    if (s_.compare(i_, w.size(), w) == 0) {
      i_ += w.size();
      return true;
    }
    return false;
  }

  Value value(int depth) {
    if (depth > 32) {
      fail("nesting too deep");
    }
    skip_ws();
    Value v;
    if (i_ >= s_.size()) {
      fail("unexpected end");
    }
    const char c = s_[i_];
    if (c == '{') {
      ++i_;
      v.kind = Value::Kind::Object;
      if (eat('}')) {
        return v;
      }
      do {
        skip_ws();
        std::string key = string();
        expect(':');
        v.object.emplace_back(std::move(key), value(depth + 1));
      } while (eat(','));
      expect('}');
    } else if (c == '[') {
      ++i_;
      v.kind = Value::Kind::Array;
      if (eat(']')) {
        return v;
      }
      do {
        v.array.push_back(value(depth + 1));
      } while (eat(','));
      expect(']');
    } else if (c == '"') {
      v.kind = Value::Kind::String;
      v.string = string();
    } else if (literal("true")) {
      v.kind = Value::Kind::Bool;
      v.boolean = true;
    } else if (literal("false")) {
      v.kind = Value::Kind::Bool;
    } else if (literal("null")) {
      v.kind = Value::Kind::Null;
    } else {
      size_t used = 0;
      try {
        v.number = std::stod(s_.substr(i_, 32), &used);
      } catch (const std::exception &) {
        fail("expected a value");
      }
      v.kind = Value::Kind::Number;
      i_ += used;
    }
    return v;
  }

  unsigned hex4() {
    if (i_ + 4 > s_.size()) {
      fail("short \\u escape");
    }
    unsigned u = 0;
    for (int k = 0; k < 4; ++k) {
      const char h = s_[i_++];
      u <<= 4;
      if (h >= '0' && h <= '9') {
        u |= static_cast<unsigned>(h - '0');
      } else if (h >= 'a' && h <= 'f') {
        u |= static_cast<unsigned>(h - 'a' + 10);
      } else if (h >= 'A' && h <= 'F') {
        u |= static_cast<unsigned>(h - 'A' + 10);
      } else {
        fail("bad \\u escape");
      }
    }
    return u;
  }

  void put_utf8(std::string &out, unsigned cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  std::string string() {
    if (i_ >= s_.size() || s_[i_] != '"') {
      fail("expected a string");
    }
    ++i_;
    std::string out;
    while (true) {
      if (i_ >= s_.size()) {
        fail("unterminated string");
      }
      const char c = s_[i_++];
      if (c == '"') {
        return out;
      }
      if (c != '\\') {
        out += c;
        continue;
      }
      if (i_ >= s_.size()) {
        fail("unterminated escape");
      }
      const char e = s_[i_++];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          unsigned cp = hex4();
          if (cp >= 0xD800 && cp < 0xDC00 && s_.compare(i_, 2, "\\u") == 0) {
            i_ += 2;
            const unsigned lo = hex4();
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          }
          put_utf8(out, cp);
          break;
        }
        default: fail("bad escape");
      }
    }
  }

  const std::string &s_;
  size_t i_ = 0;
};

inline Value parse(const std::string &text) { return Parser(text).parse(); }

/// `s` as a JSON string literal (control characters escaped, UTF-8 kept).
inline std::string quote(const std::string &s) {
  static const char digits[] = "0123456789abcdef";
  std::string out = "\"";
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += ch;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c < 0x20) {
      out += "\\u00";
      out += digits[c >> 4];
      out += digits[c & 15];
    } else {
      out += ch;
    }
  }
  return out + "\"";
}

}  // namespace crosscheck::json
