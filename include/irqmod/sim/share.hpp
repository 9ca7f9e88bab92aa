// Where irqmod's data lives: the directory that holds scenarios/, platforms/ and data/ (the
// bundled traces). Installed, that is <prefix>/share/irqmod; in the repository, its root.
//
// The order, first match wins:
//   1. $IRQMOD_SHARE_DIR, when set and not empty (taken as is: an override is never
//   second-guessed);
//   2. <directory of the running executable>/../share/irqmod, when it is a directory: the layout
//      `cmake --install` and the Debian package write (bin/irqmod beside share/irqmod);
//   3. the source tree the library was built from, when it is a directory: a build run in place
//      (build/bin/irqmod), before anything is installed.
// When none exists, the installed location of (2) is returned so errors name where data was
// expected.
#pragma once

#include <string>

namespace irqmod::sim {

// The data directory by the rules above; `executable` stands in for /proc/self/exe (tests).
std::string share_dir();
std::string share_dir_for(const std::string& executable);

}  // namespace irqmod::sim
