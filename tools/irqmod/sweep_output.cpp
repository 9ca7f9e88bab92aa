#include "sweep_output.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <tuple>

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

int open_picture(const std::string& path, const char* flag, const std::string& command,
                 std::unique_ptr<Output>& out) {
  if (auto bad = sweep::check_picture_name(path)) {
    bad->key = flag;
    std::cerr << "irqmod " << command << ": " << bad->what() << "\n";
    return kExitBadInput;
  }
  out = open_output(path, flag, command);
  return out ? kExitOk : kExitIoFailed;
}

int draw_picture(Output& out, const std::string& path, const char* flag, const std::string& command,
                 const PlotMaker& make) {
  const std::size_t dot = path.rfind('.');
  const std::string extension = dot == std::string::npos ? "" : path.substr(dot);
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
  auto files = make(image_path, data_path);
  if (!files) {
    Error error = files.error();
    if (error.key == "--plot") error.key = flag;
    std::cerr << "irqmod " << command << ": " << error.what() << "\n";
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
  std::ifstream image(image_path, std::ios::binary);
  if (rc != 0 || !image || image.peek() == std::ifstream::traits_type::eof()) {
    std::cerr << "irqmod " << command << ": gnuplot could not draw '" << path
              << "' (is Debian's gnuplot-nox installed? scripts/install-deps.sh)\n";
    return kExitIoFailed;
  }
  out.stream() << image.rdbuf();
  return commit_output(out, command) ? kExitOk : kExitIoFailed;
}

int open_table_files(const std::string& csv, const std::string& json, const std::string& picture,
                     const std::string& command, TableFiles& files) {
  for (const auto& [path, flag, holder] :
       {std::tuple{&csv, "--csv", &files.csv}, std::tuple{&json, "--json", &files.json}}) {
    if (path->empty()) continue;
    *holder = open_output(*path, flag, command);
    if (!*holder) return kExitIoFailed;
  }
  files.picture_path = picture;
  if (picture.empty()) return kExitOk;
  return open_picture(picture, "--plot", command, files.picture);
}

int write_table_files(TableFiles& files, const sweep::Table& table,
                      const sweep::PlotRequest& request, const std::string& command) {
  for (const auto& [out, as_json] :
       {std::pair{files.csv.get(), false}, std::pair{files.json.get(), true}}) {
    if (!out) continue;
    if (as_json) {
      sweep::write_json(out->stream(), table);
    } else {
      sweep::write_csv(out->stream(), table);
    }
    if (!commit_output(*out, command)) return kExitIoFailed;
  }
  if (!files.picture) return kExitOk;
  const char* flag = command == "plot" ? "--out" : "--plot";
  return draw_picture(*files.picture, files.picture_path, flag, command,
                      [&](const std::string& image, const std::string& data) {
                        sweep::PlotRequest scratch = request;
                        scratch.output = image;
                        return sweep::make_plot(table, scratch, data);
                      });
}

int draw_plot(const sweep::Table& table, const sweep::PlotRequest& request,
              const std::string& command) {
  // irqmod plot names the picture with -o/--out: a message names the one typed.
  TableFiles files;
  files.picture_path = request.output;
  if (const int opened = open_picture(request.output, "--out", command, files.picture))
    return opened;
  return write_table_files(files, table, request, command);
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
