# Installation (`cmake --install build [--prefix P]`) and the Debian packages (`cpack -G DEB`
# in the build directory).
#
# Two components, two packages:
#   runtime     -> irqmod      bin/irqmod, share/irqmod/{scenarios,platforms,data},
#                              share/doc/irqmod (README and docs/)
#   development -> irqmod-dev  include/irqmod, the static libraries irqmod::policy and irqmod::sim,
#                              lib/cmake/irqmod (find_package(irqmod))
# The simulator is installed for embedding: its public headers (include/irqmod/sim) need neither
# toml++ nor libpcap, and a program driving sim::simulate() is the point of the library. The
# runtime library (irqmod_rt, `irqmod serve`/`lab`/`napi`) is not: it is the tool's, and its
# headers stay out of the install.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(IRQMOD_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/irqmod)

install(TARGETS irqmod_policy irqmod_sim EXPORT irqmodTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT development
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY include/irqmod DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT development
        PATTERN rt EXCLUDE)
install(EXPORT irqmodTargets NAMESPACE irqmod:: DESTINATION ${IRQMOD_CMAKE_DIR}
        COMPONENT development)
configure_package_config_file(cmake/irqmodConfig.cmake.in
                              ${CMAKE_CURRENT_BINARY_DIR}/irqmodConfig.cmake
                              INSTALL_DESTINATION ${IRQMOD_CMAKE_DIR})
# 0.x: a minor release may change the API, so only the same major.minor is compatible.
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/irqmodConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/irqmodConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/irqmodConfigVersion.cmake
        DESTINATION ${IRQMOD_CMAKE_DIR} COMPONENT development)

# The data the tool finds through sim::share_dir(): <prefix>/share/irqmod beside <prefix>/bin.
set(IRQMOD_SHARE_DIR ${CMAKE_INSTALL_DATADIR}/irqmod)
if(IRQMOD_BUILD_TOOLS)
  install(TARGETS irqmod RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)
endif()
install(DIRECTORY scenarios platforms DESTINATION ${IRQMOD_SHARE_DIR} COMPONENT runtime)
install(FILES data/traces/dim-demo.csv DESTINATION ${IRQMOD_SHARE_DIR}/data/traces
        COMPONENT runtime)
install(FILES README.md DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT runtime)
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT runtime)

# --- cpack -G DEB ----------------------------------------------------------------------------
set(IRQMOD_PACKAGE_MAINTAINER "irqmod maintainers <maintainers@users.noreply.a-seed-5c297dc9.example>"
    CACHE STRING "The Debian packages' Maintainer field (the repository's commit identity)")
set(CPACK_PACKAGE_NAME irqmod)
set(CPACK_PACKAGE_VENDOR irqmod)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "interrupt moderation policies, a deterministic NIC/NAPI simulator and a Linux runtime")
set(CPACK_PACKAGE_CONTACT ${IRQMOD_PACKAGE_MAINTAINER})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL runtime development)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # irqmod_0.1.0_amd64.deb, irqmod-dev_0.1.0_amd64.deb
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER ${IRQMOD_PACKAGE_MAINTAINER})
set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME irqmod)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SECTION net)
# The tool's Depends come from dpkg-shlibdeps (libc6, libstdc++6, libpcap0.8, libmnl0, toml++).
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_NAME irqmod-dev)
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_SECTION libdevel)
# Static libraries: what a consumer links besides them is irqmodConfig.cmake's find_dependency
# (toml++) and -lpcap.
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_DEPENDS "libtomlplusplus-dev, libpcap-dev")
set(CPACK_COMPONENT_RUNTIME_DESCRIPTION
    "the irqmod command-line tool, its scenarios, platforms and documentation")
set(CPACK_COMPONENT_DEVELOPMENT_DESCRIPTION
    "headers, static libraries (irqmod::policy, irqmod::sim) and CMake package config")
include(CPack)
