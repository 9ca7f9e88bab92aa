#include "irqmod/sim/share.hpp"

#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace irqmod::sim {

namespace fs = std::filesystem;

std::string share_dir_for(const std::string& executable) {
  if (const char* env = std::getenv("IRQMOD_SHARE_DIR"); env && *env) return env;
  std::error_code ec;
  // bin/irqmod -> bin -> <prefix>; lexically_normal folds the "..", so messages stay readable.
  const fs::path installed =
      (fs::path(executable).parent_path() / ".." / "share" / "irqmod").lexically_normal();
  if (!executable.empty() && fs::is_directory(installed, ec)) return installed.string();
  if (fs::is_directory(IRQMOD_SOURCE_DIR, ec)) return IRQMOD_SOURCE_DIR;
  return installed.string();
}

std::string share_dir() {
  std::error_code ec;
  // Linux names the running executable here; when it cannot (no /proc), rules 1 and 3 remain.
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return share_dir_for(ec ? std::string() : self.string());
}

}  // namespace irqmod::sim
