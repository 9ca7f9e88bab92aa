#include "sweep_output.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>

#include "commands.hpp"

namespace irqmod::cli {

namespace {

// Opens `path` for `flag` through Output; on failure says so on stderr and returns null.
std::unique_ptr<Output> open_output(const std::string& path, const char* flag,
                                    const std::string& command) {
  auto opened = Output::open(path, flag);
  if (!opened) {
    std::cerr << "irqmod " << command << ": " << opened.error().what() << "\n";
    return nullptr;
  }
  return std::move(opened).value();
}

bool commit_output(Output& out, const std::string& command) {
  if (const auto error = out.commit()) {
    std::cerr << "irqmod " << command << ": " << error->what() << "\n";
    return false;
  }
  return true;
}

}  // namespace

int write_table_files(const sweep::Table& table, const std::string& csv, const std::string& json,
                      const std::string& command) {
  for (const auto& [path, as_json] : {std::pair{&csv, false}, std::pair{&json, true}}) {
    if (path->empty()) continue;
    auto out = open_output(*path, as_json ? "--json" : "--csv", command);
    if (!out) return kExitIoFailed;
    if (as_json) {
      sweep::write_json(out->stream(), table);
    } else {
      sweep::write_csv(out->stream(), table);
    }
    if (!commit_output(*out, command)) return kExitIoFailed;
  }
  return kExitOk;
}

int draw_plot(const sweep::Table& table, const sweep::PlotRequest& request,
              const std::string& command) {
  // The picture is drawn into a scratch file (gnuplot writes it by name), then copied through
  // Output so that request.output appears only complete, as every other result file does.
  sweep::PlotRequest scratch = request;
  const std::size_t dot = request.output.rfind('.');
  const std::string extension = dot == std::string::npos ? "" : request.output.substr(dot);
  char data_path[] = "/tmp/irqmod-plot-XXXXXX";
  std::string image_path = std::string("/tmp/irqmod-plot-XXXXXX") + extension;
  const int data_fd = mkstemp(data_path);
  const int image_fd = mkstemps(image_path.data(), static_cast<int>(extension.size()));
  if (data_fd >= 0) close(data_fd);
  if (image_fd >= 0) close(image_fd);
  struct Scratch {
    const char* data;
    const std::string& image;
    ~Scratch() {
      std::remove(data);
      std::remove(image.c_str());
    }
  } cleanup{data_path, image_path};
  if (data_fd < 0 || image_fd < 0) {
    std::cerr << "irqmod " << command << ": cannot make a temporary file for gnuplot in /tmp\n";
    return kExitIoFailed;
  }
  // Checked with the user's file name, so that a message names it rather than the scratch file.
  // irqmod plot names the picture with -o/--out, sweep with --plot: a message names the one typed.
  const char* flag = command == "plot" ? "--out" : "--plot";
  if (auto checked = sweep::make_plot(table, request, data_path); !checked) {
    Error error = checked.error();
    if (error.key == "--plot") error.key = flag;
    std::cerr << "irqmod " << command << ": " << error.what() << "\n";
    return kExitBadInput;
  }
  scratch.output = image_path;
  auto files = sweep::make_plot(table, scratch, data_path);
  // The extension is checked by make_plot; the destination before gnuplot runs.
  auto out = open_output(request.output, flag, command);
  if (!out) return kExitIoFailed;
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
  std::ifstream image(image_path, std::ios::binary);
  if (rc != 0 || !image || image.peek() == std::ifstream::traits_type::eof()) {
    std::cerr << "irqmod " << command << ": gnuplot could not draw '" << request.output
              << "' (is Debian's gnuplot-nox installed? scripts/install-deps.sh)\n";
    return kExitIoFailed;
  }
  out->stream() << image.rdbuf();
  return commit_output(*out, command) ? kExitOk : kExitIoFailed;
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
