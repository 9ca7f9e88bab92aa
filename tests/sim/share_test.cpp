#include "irqmod/sim/share.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <optional>
#include <string>

namespace irqmod::sim {
namespace {

namespace fs = std::filesystem;

// Sets or clears IRQMOD_SHARE_DIR for one test and puts the caller's value back.
class ShareEnv {
 public:
  explicit ShareEnv(const char* value) {
    if (const char* old = std::getenv("IRQMOD_SHARE_DIR")) saved_ = old;
    if (value) {
      setenv("IRQMOD_SHARE_DIR", value, 1);
    } else {
      unsetenv("IRQMOD_SHARE_DIR");
    }
  }
  ~ShareEnv() {
    if (saved_) {
      setenv("IRQMOD_SHARE_DIR", saved_->c_str(), 1);
    } else {
      unsetenv("IRQMOD_SHARE_DIR");
    }
  }
  ShareEnv(const ShareEnv&) = delete;
  ShareEnv& operator=(const ShareEnv&) = delete;

 private:
  std::optional<std::string> saved_;
};

// An installed prefix: bin/ and share/irqmod/ in a fresh temporary directory.
fs::path make_prefix(const std::string& name) {
  // The process id keeps two builds' test runs (default, asan) apart.
  const fs::path prefix =
      fs::temp_directory_path() / ("irqmod-share-test-" + name + "-" + std::to_string(getpid()));
  fs::remove_all(prefix);
  fs::create_directories(prefix / "bin");
  fs::create_directories(prefix / "share" / "irqmod");
  return prefix;
}

const fs::path kSourceTree = fs::path(IRQMOD_SCENARIO_DIR).parent_path();

TEST(share, an_installed_executable_reads_share_irqmod_beside_its_bin) {
  const ShareEnv env(nullptr);
  const fs::path prefix = make_prefix("installed");
  EXPECT_EQ(share_dir_for((prefix / "bin" / "irqmod").string()),
            (prefix / "share" / "irqmod").string());
  fs::remove_all(prefix);
}

TEST(share, the_environment_overrides_the_installed_tree) {
  const fs::path prefix = make_prefix("env");
  const ShareEnv env("/somewhere/else");
  EXPECT_EQ(share_dir_for((prefix / "bin" / "irqmod").string()), "/somewhere/else");
  fs::remove_all(prefix);
}

TEST(share, an_empty_environment_variable_is_unset) {
  const ShareEnv env("");
  const fs::path prefix = make_prefix("empty-env");
  EXPECT_EQ(share_dir_for((prefix / "bin" / "irqmod").string()),
            (prefix / "share" / "irqmod").string());
  fs::remove_all(prefix);
}

TEST(share, a_build_run_in_place_reads_the_source_tree) {
  const ShareEnv env(nullptr);
  const fs::path prefix = make_prefix("build");
  fs::remove_all(prefix / "share");  // build/bin/irqmod: no share/ beside it
  EXPECT_EQ(fs::path(share_dir_for((prefix / "bin" / "irqmod").string())), kSourceTree);
  // This test program is such a build: it finds the scenarios it was built with.
  EXPECT_TRUE(fs::is_directory(fs::path(share_dir()) / "scenarios"));
  fs::remove_all(prefix);
}

}  // namespace
}  // namespace irqmod::sim
