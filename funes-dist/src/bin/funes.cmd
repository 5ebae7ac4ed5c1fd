@echo off
rem Runs the funes command line of this distribution (its jars are in ..\lib). Needs a Java 17+
rem runtime: %JAVA_HOME%\bin\java.exe, else java on the PATH. Extra JVM flags: FUNES_JAVA_OPTS.
rem No class-data sharing archive here (bin/funes makes one on Linux and macOS).
setlocal
set "FUNES_DIST=%~dp0.."
set "FUNES_JAVA=java"
if defined JAVA_HOME set "FUNES_JAVA=%JAVA_HOME%\bin\java.exe"

rem JVector uses SIMD through the incubating Vector API on JDK 20+, and native code on 22+; the
rem version comes from the JDK's release file (JAVA_VERSION="21.0.2"), when JAVA_HOME names it.
set "FUNES_OPTS="
set "FUNES_FEATURE=0"
if defined JAVA_HOME if exist "%JAVA_HOME%\release" (
  for /f "usebackq tokens=1,2 delims==" %%a in ("%JAVA_HOME%\release") do (
    if "%%a"=="JAVA_VERSION" for /f "tokens=1 delims=." %%v in ("%%~b") do set "FUNES_FEATURE=%%v"
  )
)
if %FUNES_FEATURE% GEQ 20 set "FUNES_OPTS=--add-modules jdk.incubator.vector"
if %FUNES_FEATURE% GEQ 22 set "FUNES_OPTS=%FUNES_OPTS% --enable-native-access=ALL-UNNAMED"

rem JVM warnings go to stderr: stdout carries results, JSON and the MCP protocol.
"%FUNES_JAVA%" %FUNES_OPTS% -Xlog:disable -Xlog:all=warning:stderr "-Dfunes.launcher=%~f0" %FUNES_JAVA_OPTS% -cp "%FUNES_DIST%\lib\*" dev.funes.cli.Main %*
exit /b %ERRORLEVEL%
