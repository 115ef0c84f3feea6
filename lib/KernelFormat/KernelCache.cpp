//===- KernelCache.cpp - compiled kernel files on disk --------------------===//
//
// The entries of the compile cache: a header line and a kernel file, written
// through a temporary file and a rename, checked on every lookup.
//
//===----------------------------------------------------------------------===//

#include "fa4/KernelFormat/KernelCache.h"

#include "fa4/KernelFormat/Files.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

using namespace fa4::runtime;

namespace {
constexpr const char *kMagic = "fa4-cache";
constexpr int kVersion = 1;
/// No kernel file comes near this; a larger entry is not one of ours.
constexpr uint64_t kMaxEntryBytes = 256ull << 20;

/// Writes all of `bytes` to `fd`.
bool writeAll(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    bytes.remove_prefix(size_t(n));
  }
  return true;
}

std::string hex(uint64_t value) {
  char text[17];
  std::snprintf(text, sizeof(text), "%016llx", (unsigned long long)value);
  return text;
}
} // namespace

std::optional<std::string> fa4::runtime::defaultCacheDirectory() {
  if (const char *dir = std::getenv("FA4_CACHE_DIR")) {
    if (!*dir)
      return std::nullopt;
    return std::string(dir);
  }
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return std::string(xdg) + "/fa4";
  if (const char *home = std::getenv("HOME"); home && *home)
    return std::string(home) + "/.cache/fa4";
  return std::nullopt;
}

uint64_t fa4::runtime::fnv1a64(std::string_view bytes) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (unsigned char c : bytes) {
    hash ^= c;
    hash *= 0x100000001b3ull;
  }
  return hash;
}

std::string KernelCache::entryPath(std::string_view key) const {
  return dir + "/" + std::string(key) + ".kernel";
}

/// A key is one file name: letters, digits, '-', '_' and '.'.
static Status checkKey(std::string_view key) {
  bool ok = !key.empty() && key.size() <= 200 && key.front() != '.';
  for (char c : key)
    ok &= (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
          (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
  if (!ok)
    return Status::error("cache key '" + std::string(key) +
                         "' is not a file name of letters, digits, '-', '_' "
                         "and '.'");
  return Status::success();
}

Expected<CacheLookup> KernelCache::lookup(std::string_view key) const {
  if (Status s = checkKey(key); !s.ok())
    return s;
  CacheLookup found;
  std::string path = entryPath(key);
  struct stat info;
  if (::stat(path.c_str(), &info) != 0)
    return found;
  auto reject = [&](std::string why) {
    found.rejected = "cache entry '" + path + "' " + why;
    ::unlink(path.c_str());
    return found;
  };
  Expected<std::string> read =
      readRegularFile(path, "cache entry", kMaxEntryBytes);
  if (!read.ok()) {
    found.rejected = read.status().message();
    ::unlink(path.c_str());
    return found;
  }
  const std::string &bytes = *read;

  // "fa4-cache 1 <key> <payload bytes> <checksum>\n" and the payload.
  size_t newline = bytes.find('\n');
  if (newline == std::string::npos || newline > 512)
    return reject("has no header line");
  std::istringstream header(bytes.substr(0, newline));
  std::string magic, storedKey, checksum;
  int version = 0;
  uint64_t size = 0;
  header >> magic >> version >> storedKey >> size >> checksum;
  if (!header || magic != kMagic)
    return reject("has no fa4-cache header");
  if (version != kVersion)
    return reject("is of version " + std::to_string(version) + ", not " +
                  std::to_string(kVersion));
  if (storedKey != key)
    return reject("holds key '" + storedKey + "'");
  std::string_view payload = std::string_view(bytes).substr(newline + 1);
  if (payload.size() != size)
    return reject("is truncated: " + std::to_string(payload.size()) +
                  " bytes of kernel file where the header says " +
                  std::to_string(size));
  if (hex(fnv1a64(payload)) != checksum)
    return reject("is damaged: its checksum is " + hex(fnv1a64(payload)) +
                  ", the header says " + checksum);
  Expected<KernelFile> file = parseKernelFile(payload);
  if (!file.ok())
    return reject("holds no kernel file: " + file.status().message());
  if (Status s = verifyKernelBinary(*file); !s.ok())
    return reject("holds a kernel file that does not verify: " + s.message());
  found.file = file.take();
  return found;
}

Status KernelCache::store(std::string_view key, const KernelFile &file) const {
  if (Status s = checkKey(key); !s.ok())
    return s;
  Expected<std::string> payload = serializeKernelFile(file);
  if (!payload.ok())
    return payload.status();
  if (Status s = makeDirectories(dir, "the cache directory"); !s.ok())
    return s;
  std::string entry = std::string(kMagic) + " " + std::to_string(kVersion) +
                      " " + std::string(key) + " " +
                      std::to_string(payload->size()) + " " +
                      hex(fnv1a64(*payload)) + "\n" + *payload;
  std::string temporary = entryPath(key) + ".tmp.XXXXXX";
  int fd = ::mkstemp(temporary.data());
  if (fd < 0)
    return Status::error("cannot write a cache entry in '" + dir +
                         "': " + std::strerror(errno));
  bool written = writeAll(fd, entry);
  int error = errno;
  if (::close(fd) != 0 && written) {
    written = false;
    error = errno;
  }
  if (!written) {
    ::unlink(temporary.c_str());
    return Status::error("cannot write the cache entry '" + temporary +
                         "': " + std::strerror(error));
  }
  ::chmod(temporary.c_str(), 0644);
  if (::rename(temporary.c_str(), entryPath(key).c_str()) != 0) {
    error = errno;
    ::unlink(temporary.c_str());
    return Status::error("cannot rename the cache entry to '" +
                         entryPath(key) + "': " + std::strerror(error));
  }
  return Status::success();
}
