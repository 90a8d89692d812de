#pragma once
// Which message types may cross ranks, by the name their ports declare (networks/message_types.hpp):
// each has a Wire<T> (wire.hpp) and makes the two ends of remote_channels.hpp. Built in: i64,
// f64, string. A program with a type of its own specialises Wire<T> and registers it:
//
//   template <> struct kpn::distributed::Wire<Point> { static void put(std::string&, const Point&); static Point get(const char*&, const char*); };
//   KPN_REGISTER_REMOTE_TYPE(point, "point", Point);

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "channels/channel_base.hpp"
#include "distributed/comm.hpp"
#include "distributed/remote_channels.hpp"

namespace kpn::distributed {

// One end of a cross-rank channel on this rank: the channel its local process uses, attached to its link.
struct RemoteEnd {
  std::shared_ptr<ChannelBase> channel;
  std::function<std::uint64_t()> credit_stalls;  // the writer's end only
};

struct RemoteType {
  std::string name;
  std::function<RemoteEnd(std::string name, std::size_t capacity, OutLink& link, Comm& comm)> writer_end;
  std::function<RemoteEnd(std::string name, std::size_t capacity, InLink& link, Comm& comm)> reader_end;
};

const RemoteType* find_remote_type(std::string_view name);

struct RemoteTypeRegistration {
  explicit RemoteTypeRegistration(RemoteType type);
};

template <class T>
RemoteType remote_type(std::string name) {
  RemoteType t;
  t.name = std::move(name);
  t.writer_end = [](std::string n, std::size_t capacity, OutLink& link, Comm& comm) {
    auto ch = make_outbox<T>(std::move(n), capacity, link, comm);
    return RemoteEnd{ch, [ch] { return ch->credit_stalls(); }};
  };
  t.reader_end = [](std::string n, std::size_t capacity, InLink& link, Comm& comm) {
    return RemoteEnd{make_inbox<T>(std::move(n), capacity, link, comm), nullptr};
  };
  return t;
}

#define KPN_REGISTER_REMOTE_TYPE(ident, name, T) \
  static const ::kpn::distributed::RemoteTypeRegistration kpn_remote_type_##ident{::kpn::distributed::remote_type<T>(name)}

}  // namespace kpn::distributed
