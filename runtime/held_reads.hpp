#pragma once
// Messages a process has read from a channel without that channel's lock (channels/channel.hpp,
// "reserved reads"): their slots stay taken until the process gives them back, so a writer may find the
// channel full while the reader has already consumed some of it. The rule that keeps such a network from
// ever deadlocking where the exact count would not: a process gives back what it holds before it blocks,
// anywhere (every park of blocking.hpp, timed_wait.hpp, multi_wait.hpp, blocking_call.hpp), when it hands
// the reader endpoint on, and when its body ends. So a writer waits on held slots only while their reader
// is running or ready, and a deadlock, which needs every process of a cycle blocked, sees the exact counts.
//
// The channel gives them back in ChannelView::give_back_reads. A process holds the reads of one channel at
// most (Process::held_reads_, touched by the process alone, on whichever worker it runs: the switches
// publish it). A channel that would reserve while its reader holds another's reads just reads one
// message: giving the other back there would take a second channel lock, which two workers could take in
// opposite orders.

#include "runtime/channel_view.hpp"
#include "runtime/export.hpp"

namespace kpn {

// The calling process holds `reads` from now on (true), or cannot: it is not a process, or it holds
// another channel's reads (false, nothing changed). Called under `reads`'s channel lock.
KPN_EXPORT bool hold_reads(ChannelView& reads) noexcept;
// The calling process no longer holds `reads` (its channel ended the reservation itself, under its lock);
// nothing if it does not hold them.
KPN_EXPORT void drop_held_reads(ChannelView& reads) noexcept;
// Gives back the reads of `channel` if the calling process holds them (its reader endpoint is being handed
// on). It takes `channel`'s lock, as the hand-over of a used endpoint already does (record_endpoint_user),
// so no channel lock may be held: an endpoint travels in a message only once it has left its process's
// object (Writer::write takes its value by value, the timed writes move it out first, endpoints.hpp).
KPN_EXPORT void give_back_reads_of(ChannelView& channel) noexcept;
// Whether the calling process holds reads of some channel now (for tests and assertions).
KPN_EXPORT bool current_process_holds_reads() noexcept;
// Gives back whatever the calling process holds (see the top); nothing outside a process. No channel lock
// may be held.
KPN_EXPORT void give_back_held_reads() noexcept;

}  // namespace kpn
