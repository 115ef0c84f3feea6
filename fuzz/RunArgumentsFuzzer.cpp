//===- RunArgumentsFuzzer.cpp - fa4-run's argument parser under libFuzzer -===//
//
// The input as a command line, one argument per line: parsed as fa4-run
// parses its argv (no file is opened, nothing runs).
//
//===----------------------------------------------------------------------===//

#include "Arguments.h"

#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::vector<std::string> words = {"fa4-run"};
  std::string word;
  for (size_t i = 0; i < size; ++i) {
    if (data[i] == '\n') {
      words.push_back(word);
      word.clear();
    } else {
      word += char(data[i]);
    }
  }
  if (!word.empty())
    words.push_back(word);
  std::vector<const char *> argv;
  for (const std::string &w : words)
    argv.push_back(w.c_str());
  (void)fa4::run::parseArguments(int(argv.size()), argv.data());
  return 0;
}
