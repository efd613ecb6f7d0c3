package containers

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
)

// Environment variables of testcontainers-go that the package defaults (see
// the package documentation), and the image variable.
const (
	EnvRyukDisabled = "TESTCONTAINERS_RYUK_DISABLED"
	EnvHostOverride = "TESTCONTAINERS_HOST_OVERRIDE"
	// EnvImage names the Kafka image when Options.Image is empty.
	EnvImage = "KREACTOR_KAFKA_IMAGE"
)

// Images.
const (
	// DefaultImage is the image built locally by `make kafka-image`
	// (images/kafka/build.sh).
	DefaultImage = "kreactor/kafka:4.4.0"
	// OfficialImage is the official Apache Kafka image of the same
	// version, for machines that reach a registry.
	OfficialImage = "apache/kafka:4.4.0"
)

var (
	// ErrNoDocker: no Docker engine answers. The error wraps the cause;
	// `make docker` starts one.
	ErrNoDocker = errors.New("containers: no Docker engine answers (start one with `make docker`)")
	// ErrNoImage: the Kafka image is not present in the engine. The package
	// does not pull; `make kafka-image` builds DefaultImage.
	ErrNoImage = errors.New("containers: Kafka image not present (build it with `make kafka-image`, or `docker pull` it where a registry is reachable)")
)

// pingTimeout bounds the Docker availability check.
const pingTimeout = 5 * time.Second

func init() {
	// Before testcontainers-go reads its configuration (once, on first use).
	setDefaultEnv(EnvRyukDisabled, "true")
	setDefaultEnv(EnvHostOverride, "127.0.0.1")
}

func setDefaultEnv(key, value string) {
	if _, ok := os.LookupEnv(key); !ok {
		_ = os.Setenv(key, value)
	}
}

// dockerClient connects to the Docker engine testcontainers-go would use and
// pings it. Errors wrap ErrNoDocker.
func dockerClient(ctx context.Context) (*testcontainers.DockerClient, error) {
	ctx, cancel := context.WithTimeout(ctx, pingTimeout)
	defer cancel()
	var (
		cli *testcontainers.DockerClient
		err error
	)
	func() {
		// testcontainers-go panics in some host-resolution paths when no
		// engine exists; report that as absence too.
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("%v", r)
			}
		}()
		cli, err = testcontainers.NewDockerClientWithOpts(ctx)
	}()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoDocker, err)
	}
	if _, err := cli.Ping(ctx, client.PingOptions{}); err != nil {
		_ = cli.Close()
		return nil, fmt.Errorf("%w: %w", ErrNoDocker, err)
	}
	return cli, nil
}

// EnvRequireDocker is the environment variable that, when set, makes tests
// that need Docker (this package's, harness/targets' kafka contract) fail
// when the engine or the image is missing instead of skipping.
const EnvRequireDocker = "KREACTOR_REQUIRE_DOCKER"

// DockerAvailable returns nil when a Docker engine answers within 5 s, else
// an error wrapping ErrNoDocker and the cause.
func DockerAvailable(ctx context.Context) error {
	cli, err := dockerClient(ctx)
	if err != nil {
		return err
	}
	return cli.Close()
}

// ImagePresent returns nil when image is in the engine's image store, an
// error wrapping ErrNoImage when it is not, and one wrapping ErrNoDocker when
// no engine answers.
func ImagePresent(ctx context.Context, image string) error {
	cli, err := dockerClient(ctx)
	if err != nil {
		return err
	}
	defer cli.Close()
	return imagePresent(ctx, cli, image)
}

func imagePresent(ctx context.Context, cli *testcontainers.DockerClient, image string) error {
	if _, err := cli.ImageInspect(ctx, image); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrNoImage, image, err)
	}
	return nil
}

// ResolveImage is the image a start uses: image if non-empty, else
// $KREACTOR_KAFKA_IMAGE, else DefaultImage.
func ResolveImage(image string) string {
	if image != "" {
		return image
	}
	if env := os.Getenv(EnvImage); env != "" {
		return env
	}
	return DefaultImage
}
