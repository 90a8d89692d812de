#pragma once
// kpn::Network: the processes and channels a run starts with, built in C++.
//
//   kpn::Network net;
//   auto [tx, rx] = net.channel<int>(16);
//   net.process("producer", [tx = std::move(tx)]() mutable { for (int i = 0; i < 100; ++i) tx.write(i); });
//   net.process("consumer", [rx = std::move(rx)]() mutable { while (auto v = rx.read()) use(*v); });
//   kpn::Runtime({.cpus = 2, .scheduler = "ws-last"}).run(net);

#include <string>
#include <utility>

#include "channels/channel.hpp"
#include "runtime/export.hpp"
#include "runtime/network_spec.hpp"

namespace kpn {

class KPN_EXPORT Network : public NetworkSpec {
 public:
  // A channel listed in this network's run report; `name` defaults to "channel-<n>".
  template <class T>
  std::pair<Writer<T>, Reader<T>> channel(std::size_t capacity, std::string name = {}) {
    if (name.empty()) name = detail::next_channel_name();
    auto ch = std::make_shared<Channel<T>>(std::move(name), capacity);
    add_channel(ch);
    return {Writer<T>(ch), Reader<T>(ch)};
  }

  // A process started with the network. Names are unique within a network: Runtime::run refuses a network
  // with two processes of one name (std::invalid_argument naming it) before anything runs.
  void process(std::string name, UniqueFunction<void()> body, ProcessOptions options = {}) {
    add_process(std::move(name), std::move(body), options);
  }
};

}  // namespace kpn
