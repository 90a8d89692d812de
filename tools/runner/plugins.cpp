#include "tools/runner/plugins.hpp"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <system_error>
#include <vector>

#include "tools/runner/exit_status.hpp"

namespace kpn_run {
namespace {

// A plugin's static constructors (its kinds' registrations among them) run inside dlopen(). An exception
// thrown there cannot be caught around the call (it would have to unwind through the dynamic loader, which
// ends in std::terminate), so while a plugin loads, terminating means that plugin failed: say which, and
// exit 2 as for any plugin that cannot be loaded. Nothing has been written to stdout yet, and the loader's
// lock is still held, so the process ends without running exit handlers.
const char* g_loading_plugin = nullptr;

[[noreturn]] void on_terminate_while_loading() {
  std::string what = "an exception that is not a std::exception";
  if (std::exception_ptr e = std::current_exception()) {
    try {
      std::rethrow_exception(e);
    } catch (const std::exception& x) {
      what = x.what();
    } catch (...) {
    }
  }
  std::fprintf(stderr, "kpn-run: plugin '%s' failed while loading: %s\n", g_loading_plugin, what.c_str());
  std::fflush(stderr);
  std::_Exit(kExitBadInput);
}

class PluginLoadGuard {
 public:
  explicit PluginLoadGuard(const std::string& plugin) {
    g_loading_plugin = plugin.c_str();
    previous_ = std::set_terminate(on_terminate_while_loading);
  }
  ~PluginLoadGuard() {
    std::set_terminate(previous_);
    g_loading_plugin = nullptr;
  }
  PluginLoadGuard(const PluginLoadGuard&) = delete;
  PluginLoadGuard& operator=(const PluginLoadGuard&) = delete;

 private:
  std::terminate_handler previous_ = nullptr;
};

}  // namespace

#ifndef KPN_PLUGIN_DIRS
#error "KPN_PLUGIN_DIRS must be defined by the build (tools/CMakeLists.txt)"
#endif

std::string plugin_file(const std::string& plugin) {
  namespace fs = std::filesystem;
  if (plugin.empty() || plugin.find('/') != std::string::npos) return plugin;
  std::vector<fs::path> dirs;
  auto add_dirs = [&dirs](const std::string& list, const fs::path& base) {
    std::size_t start = 0;
    while (start <= list.size()) {
      std::size_t end = list.find(':', start);
      if (end == std::string::npos) end = list.size();
      if (end > start) dirs.push_back(base / list.substr(start, end - start));
      start = end + 1;
    }
  };
  if (const char* env = std::getenv("KPN_PLUGIN_PATH")) add_dirs(env, fs::path());
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) add_dirs(KPN_PLUGIN_DIRS, exe.parent_path());
  for (const auto& dir : dirs) {
    for (const auto& name : {plugin, "lib" + plugin + ".so"}) {
      const fs::path candidate = dir / name;
      if (fs::is_regular_file(candidate, ec)) return candidate.lexically_normal().string();
    }
  }
  return plugin;
}

std::string load_plugin(const std::string& plugin) {
  void* handle = nullptr;
  {
    PluginLoadGuard guard(plugin);
    handle = dlopen(plugin_file(plugin).c_str(), RTLD_NOW | RTLD_GLOBAL);
  }
  if (handle != nullptr) return {};
  const char* why = dlerror();
  return why != nullptr ? why : "dlopen failed";
}

}  // namespace kpn_run
