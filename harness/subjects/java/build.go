package java

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

// The driver's build script and its outputs, relative to DriverDir.
const (
	buildScript = "build.sh"
	driverJar   = "target/kreactor-java-driver.jar"
	loggingDir  = "target/logging"
	mainClass   = "dev.kreactor.driver.Main"
)

// buildMu serialises builds within this process (build.sh also takes a
// file lock, for several test processes); classpaths caches their results.
var (
	buildMu    sync.Mutex
	classpaths = map[string][]string{} // guarded by buildMu; key: driverDir + "\x00" + release or "local"
)

// findDriverDir returns o.DriverDir, or subjects/java found by walking up
// from the working directory to the kreactor module root.
func findDriverDir(o Options) (string, error) {
	if o.DriverDir != "" {
		if _, err := os.Stat(filepath.Join(o.DriverDir, buildScript)); err != nil {
			return "", fmt.Errorf("java subject: driver dir %q (Options.DriverDir / %s) has no %s: %w", o.DriverDir, EnvDriverDir, buildScript, err)
		}
		return filepath.Abs(o.DriverDir)
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := dir; ; d = filepath.Dir(d) {
		cand := filepath.Join(d, "subjects", "java")
		if _, err := os.Stat(filepath.Join(cand, buildScript)); err == nil {
			return cand, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("java subject: no subjects/java/%s above %s; set %s", buildScript, dir, EnvDriverDir)
		}
	}
}

// javaBinary returns the java to run, or an error wrapping ErrJavaMissing.
func javaBinary(o Options) (string, error) {
	if o.Java != "" {
		return o.Java, nil
	}
	if h := os.Getenv("JAVA_HOME"); h != "" {
		j := filepath.Join(h, "bin", "java")
		if _, err := os.Stat(j); err == nil {
			return j, nil
		}
	}
	j, err := exec.LookPath("java")
	if err != nil {
		return "", fmt.Errorf("%w (%v)", ErrJavaMissing, err)
	}
	return j, nil
}

// Classpath builds the driver and resolves the selected kafka-clients if not
// cached yet (build.sh; Maven), and returns the driver's full classpath:
// the driver jar, its logging jars, then the release's jars or
// o.Classpath. Cached per process after the first call.
func Classpath(ctx context.Context, o Options) ([]string, error) {
	o, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	dir, err := findDriverDir(o)
	if err != nil {
		return nil, err
	}
	key := dir + "\x00" + o.Clients
	if len(o.Classpath) > 0 {
		key = dir + "\x00local"
	}
	buildMu.Lock()
	defer buildMu.Unlock()
	cp, ok := classpaths[key]
	if !ok {
		if len(o.Classpath) > 0 {
			_, err = runBuild(ctx, dir, "driver")
			if err == nil {
				cp = []string{filepath.Join(dir, driverJar)}
				var logging []string
				logging, err = filepath.Glob(filepath.Join(dir, loggingDir, "*.jar"))
				cp = append(cp, logging...)
			}
		} else {
			var out string
			out, err = runBuild(ctx, dir, "classpath", o.Clients)
			cp = strings.Split(strings.TrimSpace(out), ":")
		}
		if err != nil {
			return nil, err
		}
		classpaths[key] = cp
	}
	out := append([]string(nil), cp...)
	for _, p := range o.Classpath {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, err
		}
		out = append(out, abs)
	}
	return out, nil
}

// runBuild runs build.sh with args and returns its stdout. A missing mvn or
// java (the script's exit status 3) wraps ErrJavaMissing.
func runBuild(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "bash", append([]string{filepath.Join(dir, buildScript)}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if err == nil {
		return stdout.String(), nil
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 3 {
		return "", fmt.Errorf("%w: %s", ErrJavaMissing, strings.TrimSpace(stderr.String()))
	}
	return "", fmt.Errorf("java subject: %s %s: %v\n%s", buildScript, strings.Join(args, " "), err, tail(stderr.String(), 8<<10))
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "..." + s[len(s)-n:]
}
