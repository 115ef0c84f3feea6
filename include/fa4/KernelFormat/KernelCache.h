//===- KernelCache.h - compiled kernel files on disk ------------*- C++ -*-===//
//
// The compile cache's storage: kernel files kept under a directory
// ($FA4_CACHE_DIR, by default ~/.cache/fa4), one entry per key, so that a
// second process gets a compiled kernel without compiling it. The key is the
// caller's (the compiler hashes what decides the cubin: the tile program,
// the plan, its own build, ptxas and the target); the store only checks it is
// a file name.
//
// An entry is a one-line header (magic, version, key, size and an FNV-1a
// checksum of the payload) and the kernel file's bytes. It is written to a
// temporary file in the same directory and renamed over the entry, so a
// reader sees the old entry or the new one, never half of one, and two
// processes that store one key at once both succeed. A lookup checks the
// header, the size, the checksum and the kernel file itself; an entry that
// fails is reported, removed and treated as missing.
//
//===----------------------------------------------------------------------===//

#ifndef FA4_KERNELFORMAT_KERNELCACHE_H
#define FA4_KERNELFORMAT_KERNELCACHE_H

#include "fa4/KernelFormat/KernelFile.h"
#include "fa4/KernelFormat/Status.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace fa4::runtime {

/// The cache directory the environment names: $FA4_CACHE_DIR when set (set
/// and empty: none, the cache is off), else $XDG_CACHE_HOME/fa4, else
/// $HOME/.cache/fa4; none when neither names a place.
std::optional<std::string> defaultCacheDirectory();

/// FNV-1a, 64 bits: the entries' checksum (detects truncation and damage, not
/// tampering).
uint64_t fnv1a64(std::string_view bytes);

/// What a lookup found.
struct CacheLookup {
  /// The kernel, when the entry was there and sound.
  std::optional<KernelFile> file;
  /// Why an entry that was there was not used (damaged, truncated, another
  /// key); empty for a plain miss.
  std::string rejected;
};

/// Kernel files stored under one directory, by key.
class KernelCache {
public:
  /// A cache in `directory` (created on the first store).
  explicit KernelCache(std::string directory) : dir(std::move(directory)) {}

  /// The entry of `key`: a kernel file, a miss, or a rejected entry (then
  /// removed). Fails only for a key that is not a file name.
  Expected<CacheLookup> lookup(std::string_view key) const;

  /// Stores `file` as the entry of `key`, atomically.
  Status store(std::string_view key, const KernelFile &file) const;

  /// The path of the entry of `key`.
  std::string entryPath(std::string_view key) const;

  const std::string &directory() const { return dir; }

private:
  std::string dir;
};

} // namespace fa4::runtime

#endif // FA4_KERNELFORMAT_KERNELCACHE_H
