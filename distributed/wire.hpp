#pragma once
// How a message crosses ranks: Wire<T> appends a value to a byte string and reads it back. Built in for
// the message types of networks/message_types.hpp (i64, f64, string); a program adds its own type with a
// Wire<T> specialisation and KPN_REGISTER_REMOTE_TYPE (remote_types.hpp).
//
// The encoding is the sending machine's: fixed-width numbers are copied as they are in memory, so every
// rank must share byte order and the width of the types (a homogeneous cluster; docs/distributed.md).

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace kpn::distributed {

// A malformed or truncated message: a protocol error (both ends run the same program, so never expected).
class WireError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

template <class T>
struct Wire;  // static void put(std::string& out, const T& v); static T get(const char*& p, const char* end);

namespace detail {
template <class T>
void put_raw(std::string& out, const T& v) {
  static_assert(std::is_trivially_copyable_v<T>);
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}
template <class T>
T get_raw(const char*& p, const char* end) {
  static_assert(std::is_trivially_copyable_v<T>);
  if (end - p < static_cast<std::ptrdiff_t>(sizeof(T))) throw WireError("truncated message");
  T v;
  std::memcpy(&v, p, sizeof v);
  p += sizeof v;
  return v;
}
}  // namespace detail

template <>
struct Wire<std::int64_t> {
  static void put(std::string& out, std::int64_t v) { detail::put_raw(out, v); }
  static std::int64_t get(const char*& p, const char* end) { return detail::get_raw<std::int64_t>(p, end); }
};

template <>
struct Wire<double> {
  static void put(std::string& out, double v) { detail::put_raw(out, v); }
  static double get(const char*& p, const char* end) { return detail::get_raw<double>(p, end); }
};

template <>
struct Wire<std::string> {
  static void put(std::string& out, const std::string& v) {
    detail::put_raw(out, static_cast<std::uint64_t>(v.size()));
    out += v;
  }
  static std::string get(const char*& p, const char* end) {
    const auto n = detail::get_raw<std::uint64_t>(p, end);
    if (static_cast<std::uint64_t>(end - p) < n) throw WireError("truncated string");
    std::string v(p, static_cast<std::size_t>(n));
    p += n;
    return v;
  }
};

}  // namespace kpn::distributed
