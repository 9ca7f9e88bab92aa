// Named network namespaces (src/rt/netns.cpp): an empty or missing name, what a guard that could
// not enter says and that the process stays where it was; device names by index. As root, with
// `ip`: a guard enters a namespace this test creates (and removes) and returns when it ends.
#include "irqmod/rt/netns.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <utility>

namespace irqmod::rt {
namespace {

// The network namespace the process is in, as the inode of /proc/self/ns/net.
ino_t current_netns() {
  struct stat st {};
  EXPECT_EQ(::stat("/proc/self/ns/net", &st), 0);
  return st.st_ino;
}

// A name no one else uses: the test's own, with the process id.
std::string own_netns_name(const char* what) {
  return std::string("irqmod-test-") + what + "-" + std::to_string(::getpid());
}

// `ip netns add NAME` in the constructor when it can (root, `ip` present), `ip netns del NAME`
// in the destructor, whatever the test did in between.
class ScratchNetns {
 public:
  explicit ScratchNetns(std::string name) : name_(std::move(name)) {
    if (::geteuid() != 0) {
      why_not_ = "needs root";
    } else if (std::system("ip -V >/dev/null 2>&1") != 0) {
      why_not_ = "needs ip (iproute2)";
    } else if (std::system(("ip netns add " + name_ + " 2>/dev/null").c_str()) != 0) {
      why_not_ = "ip netns add failed (no network namespaces here)";
    } else {
      made_ = true;
    }
  }
  ScratchNetns(const ScratchNetns&) = delete;
  ScratchNetns& operator=(const ScratchNetns&) = delete;
  ~ScratchNetns() { remove(); }
  void remove() {
    if (!made_) return;
    const int status = std::system(("ip netns del " + name_ + " 2>/dev/null").c_str());
    EXPECT_EQ(status, 0) << "ip netns del " << name_;
    made_ = false;
  }
  bool made() const { return made_; }
  const std::string& why_not() const { return why_not_; }
  const std::string& name() const { return name_; }

 private:
  std::string name_;
  std::string why_not_;
  bool made_ = false;
};

TEST(netns, an_empty_name_exists_nowhere_and_its_guard_stays_where_the_process_is) {
  EXPECT_FALSE(netns_exists(""));
  const ino_t before = current_netns();
  {
    const NetnsGuard guard("");
    EXPECT_FALSE(guard.error());
    EXPECT_EQ(current_netns(), before);
  }
  EXPECT_EQ(current_netns(), before);
}

TEST(netns, a_missing_namespace_is_an_error_naming_the_flag_and_the_process_stays) {
  const std::string name = own_netns_name("missing");
  EXPECT_FALSE(netns_exists(name));
  const ino_t before = current_netns();
  {
    const NetnsGuard guard(name);
    ASSERT_TRUE(guard.error());
    EXPECT_EQ(guard.error()->key, "--netns");
    EXPECT_NE(guard.error()->message.find("no network namespace named '" + name + "'"),
              std::string::npos)
        << guard.error()->message;
    EXPECT_EQ(current_netns(), before);
  }
  EXPECT_EQ(current_netns(), before);
}

TEST(netns, device_names_are_looked_up_by_index_and_an_unknown_one_is_a_question_mark) {
  EXPECT_EQ(device_name(1), "lo");  // loopback is the first device of every namespace
  EXPECT_EQ(device_name(0), "?");
  EXPECT_EQ(device_name(0x7fff'fff0), "?");
}

TEST(netns, a_guard_enters_the_namespace_and_comes_back_when_it_ends) {
  ScratchNetns scratch(own_netns_name("enter"));
  if (!scratch.made()) GTEST_SKIP() << scratch.why_not();
  EXPECT_TRUE(netns_exists(scratch.name()));
  const ino_t before = current_netns();
  {
    const NetnsGuard guard(scratch.name());
    ASSERT_FALSE(guard.error()) << guard.error()->what();
    EXPECT_NE(current_netns(), before);
    EXPECT_EQ(device_name(1), "lo");  // a new namespace has loopback only
    EXPECT_EQ(device_name(2), "?");
  }
  EXPECT_EQ(current_netns(), before);
  scratch.remove();
  EXPECT_FALSE(netns_exists(scratch.name()));
}

}  // namespace
}  // namespace irqmod::rt
