// What irqmod sweep, plot, tune and sim's --plot share on the command line: result files opened
// before the work that fills them (a path that cannot be written fails at once, with
// kExitIoFailed, not after a long sweep), written through output.hpp's Output (a temporary name
// renamed into place); pictures drawn by gnuplot; and the progress bar.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "irqmod/sweep/plot.hpp"
#include "irqmod/sweep/table.hpp"
#include "irqmod/time.hpp"
#include "output.hpp"

namespace irqmod::cli {

// Opens the picture `path` for `flag` ("--plot", "--out"). Returns kExitOk with `out` set;
// kExitBadInput for a name that does not end in .svg or .png; kExitIoFailed when it cannot be
// written. Failures are said on stderr, naming `command` and the flag.
int open_picture(const std::string& path, const char* flag, const std::string& command,
                 std::unique_ptr<Output>& out);

// Makes gnuplot's data and script: `image` and `data` are the scratch files it is to use.
using PlotMaker =
    std::function<Expected<sweep::PlotFiles>(const std::string& image, const std::string& data)>;

// Draws `make`'s picture into a scratch file named like `path` (gnuplot writes it by name), then
// copies it into `out` (opened by open_picture) and commits it. kExitBadInput when `make` refuses
// (its error's "--plot" key renamed to `flag`), kExitIoFailed when gnuplot or the file fails.
int draw_picture(Output& out, const std::string& path, const char* flag, const std::string& command,
                 const PlotMaker& make);

// A results table's files: --csv and --json (empty: not written; "-": stdout) and a picture.
struct TableFiles {
  std::unique_ptr<Output> csv, json, picture;
  std::string picture_path;
};

// Opens them all before the work. kExitOk, or the status open_picture / Output gave, said on
// stderr.
int open_table_files(const std::string& csv, const std::string& json, const std::string& picture,
                     const std::string& command, TableFiles& files);

// Writes `table` to the files opened, then draws the picture (`request`'s output is the
// picture's path). kExitOk, or the first failure's status after saying which file.
int write_table_files(TableFiles& files, const sweep::Table& table,
                      const sweep::PlotRequest& request, const std::string& command);

// Opens -o/--out, then draws `table` (irqmod plot).
int draw_plot(const sweep::Table& table, const sweep::PlotRequest& request,
              const std::string& command);

// Points done and the time left, on stderr, only when stderr is a terminal.
class PointProgress {
 public:
  PointProgress();
  void update(std::size_t done, std::size_t total);
  void finish() const;

 private:
  Instant start_;
  bool tty_;
  bool shown_ = false;
};

}  // namespace irqmod::cli
