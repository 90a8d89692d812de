#pragma once
// kpn-run --plugin LIB: shared libraries whose static constructors register process kinds.

#include <string>

namespace kpn_run {

// What dlopen() is given for --plugin LIB. A LIB with a '/' is a path, used as it is. A bare file name
// (libkpn-example-plugin.so, or kpn-example-plugin for lib<name>.so) is looked for in $KPN_PLUGIN_PATH
// (':'-separated), then in the plugin folders relative to this executable, KPN_PLUGIN_DIRS (the installed
// lib/kpn/plugins, and the build tree's lib/); found nowhere, it goes to dlopen() unchanged, which searches
// the library path as before.
std::string plugin_file(const std::string& plugin);

// Loads `plugin` (found by plugin_file) for good. Returns an empty string, or dlerror()'s message. A plugin
// whose registration throws ends the program with exit status 2, naming the plugin.
std::string load_plugin(const std::string& plugin);

}  // namespace kpn_run
