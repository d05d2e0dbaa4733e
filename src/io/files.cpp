#include "io/files.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "gpuplan/error.hpp"

namespace gpuplan::io {

std::string read_file(const std::string& path, std::uint64_t max_bytes) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status)) throw InputError({path, 0, 0}, "", "cannot open file: no such file");
  if (std::filesystem::is_directory(status)) throw InputError({path, 0, 0}, "", "is a directory, expected a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError({path, 0, 0}, "", std::string("cannot open file: ") + std::strerror(errno));
  std::string data;
  char buf[65536];
  while (in) {
    in.read(buf, sizeof buf);
    data.append(buf, static_cast<std::size_t>(in.gcount()));
    if (data.size() > max_bytes)
      throw InputError({path, 0, 0}, "",
                       "file is larger than the " + std::to_string(max_bytes / (1024 * 1024)) + " MiB input limit");
  }
  return data;
}

void write_file_atomic(const std::string& path, const std::string& contents) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw InputError({path, 0, 0}, "", std::string("cannot write: ") + std::strerror(errno));
    out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
    out.flush();
    if (!out) {
      std::remove(tmp.c_str());
      throw InputError({path, 0, 0}, "", "write failed");
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    std::remove(tmp.c_str());
    throw InputError({path, 0, 0}, "", "cannot replace file: " + why);
  }
}

}  // namespace gpuplan::io
