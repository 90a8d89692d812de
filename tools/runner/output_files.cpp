#include "tools/runner/output_files.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

namespace kpn_run {

void write_text(const std::string& path, const std::string& text) {
  const bool to_stdout = path == "-";
  std::FILE* f = to_stdout ? stdout : std::fopen(path.c_str(), "w");
  if (f == nullptr) throw WriteError(fmt::format("cannot open '{}' for writing: {}", path, std::strerror(errno)));
  int err = 0;
  if (std::fwrite(text.data(), 1, text.size(), f) != text.size()) err = errno;
  if (std::fflush(f) != 0 && err == 0) err = errno;
  if (std::ferror(f) != 0 && err == 0) err = EIO;
  if (!to_stdout && std::fclose(f) != 0 && err == 0) err = errno;
  if (err != 0) throw WriteError(fmt::format("cannot write {}: {}", to_stdout ? "to stdout" : "'" + path + "'", std::strerror(err)));
}

void check_writable(const std::string& option, const std::string& path) {
  namespace fs = std::filesystem;
  if (path == "-") return;
  auto fail = [&](const std::string& why) {
    throw CLI::ValidationError(option, fmt::format("cannot write '{}': {}", path, why));
  };
  std::error_code ec;
  const auto st = fs::status(path, ec);
  if (fs::exists(st)) {
    if (fs::is_directory(st)) fail("it is a directory");
    if (::access(path.c_str(), W_OK) != 0) fail(std::strerror(errno));
    return;
  }
  fs::path dir = fs::path(path).parent_path();
  if (dir.empty()) dir = ".";
  const auto ds = fs::status(dir, ec);
  if (!fs::exists(ds)) fail(fmt::format("the directory '{}' does not exist", dir.string()));
  if (!fs::is_directory(ds)) fail(fmt::format("'{}' is not a directory", dir.string()));
  if (::access(dir.c_str(), W_OK | X_OK) != 0) fail(fmt::format("cannot create a file in '{}': {}", dir.string(), std::strerror(errno)));
}

kpn::ResultSink stdout_results(std::atomic<int>& error) {
  return kpn::ResultSink([&error](std::string_view line) {
    errno = 0;
    const bool written = std::fwrite(line.data(), 1, line.size(), stdout) == line.size() && std::fputc('\n', stdout) != EOF &&
                         std::fflush(stdout) == 0 && std::ferror(stdout) == 0;
    int none = 0;
    if (!written) error.compare_exchange_strong(none, errno != 0 ? errno : EIO);
  });
}


}  // namespace kpn_run
