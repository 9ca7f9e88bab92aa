#include "sweep_output.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>

#include "commands.hpp"

namespace irqmod::cli {

int write_table_files(const sweep::Table& table, const std::string& csv, const std::string& json,
                      const std::string& command) {
  for (const auto& [path, as_json] : {std::pair{&csv, false}, std::pair{&json, true}}) {
    if (path->empty()) continue;
    std::ofstream file;
    std::ostream* out = &std::cout;
    if (*path != "-") {
      file.open(*path);
      out = &file;
    }
    if (*out) {
      if (as_json) {
        sweep::write_json(*out, table);
      } else {
        sweep::write_csv(*out, table);
      }
      out->flush();
    }
    if (!*out) {
      std::cerr << "irqmod " << command << ": " << (as_json ? "--json" : "--csv")
                << ": cannot write '" << *path << "'\n";
      return kExitWriteFailed;
    }
  }
  return 0;
}

int draw_plot(const sweep::Table& table, const sweep::PlotRequest& request,
              const std::string& command) {
  char data_path[] = "/tmp/irqmod-plot-XXXXXX";
  const int fd = mkstemp(data_path);
  if (fd < 0) {
    std::cerr << "irqmod " << command << ": cannot make a temporary file for gnuplot's data\n";
    return kExitWriteFailed;
  }
  close(fd);
  auto files = sweep::make_plot(table, request, data_path);
  if (!files) {
    std::remove(data_path);
    std::cerr << "irqmod " << command << ": " << files.error().what() << "\n";
    return kExitBadInput;
  }
  {
    std::ofstream data(data_path);
    data << files->data;
  }
  // gnuplot reads the script on stdin; its own messages go to our stderr.
  FILE* gnuplot = popen("gnuplot", "w");
  int rc = -1;
  if (gnuplot) {
    std::fwrite(files->script.data(), 1, files->script.size(), gnuplot);
    rc = pclose(gnuplot);
  }
  std::remove(data_path);
  if (rc != 0) {
    std::cerr << "irqmod " << command << ": gnuplot could not draw '" << request.output
              << "' (is Debian's gnuplot-nox installed? scripts/install-deps.sh)\n";
    return kExitWriteFailed;
  }
  return 0;
}

PointProgress::PointProgress() : start_(SteadyClock::now()), tty_(isatty(STDERR_FILENO) != 0) {}

void PointProgress::update(std::size_t done, std::size_t total) {
  if (!tty_ || total == 0) return;
  const double elapsed = static_cast<double>((SteadyClock::now() - start_).count()) / 1e9;
  const double fraction = static_cast<double>(done) / static_cast<double>(total);
  const int filled = static_cast<int>(fraction * 30.0);
  const double left =
      done ? elapsed / static_cast<double>(done) * static_cast<double>(total - done) : 0.0;
  std::fprintf(stderr, "\r[%-30s] %zu/%zu points  %.0f s left ", std::string(filled, '#').c_str(),
               done, total, left);
  std::fflush(stderr);
  shown_ = true;
}

void PointProgress::finish() const {
  if (shown_) std::fprintf(stderr, "\r%70s\r", "");
}

}  // namespace irqmod::cli
