// Package containers runs real Apache Kafka 4.4.0 in Docker with
// testcontainers-go, for the harness's real-Kafka target
// (harness/targets/kafka).
//
// StartSingle starts one KRaft node (broker and controller combined);
// StartCluster starts Options.Brokers such nodes (default 3) on one
// user-defined Docker network, the controllers forming one static quorum.
// Every broker advertises a listener on 127.0.0.1:<host port>, the host port
// being chosen before the container starts and published on 127.0.0.1 only, so
// a client on the host reaches every broker by its advertised address;
// brokers and controllers talk to each other on the Docker network
// (kafka-<id>:9094 and kafka-<id>:9093). A node keeps its data directory and
// ports across Stop and Start.
//
// The image is a parameter: Options.Image, else $KREACTOR_KAFKA_IMAGE, else
// DefaultImage (kreactor/kafka:4.4.0, built locally by `make kafka-image`
// because no container registry is reachable here). The containers are
// configured only through KAFKA_* environment variables and CLUSTER_ID, the
// convention of the official image, so OfficialImage (apache/kafka:4.4.0)
// runs unchanged where a registry exists. The package never pulls: a missing
// image is ErrNoImage.
//
// A start returns once Kafka serves: a Metadata request to every broker's
// advertised address answers and lists every running broker. A missing Docker
// engine is ErrNoDocker.
//
// Admin work uses franz-go's kadm: Cluster.Admin returns a kadm client
// straight to the brokers, and CreateTopic creates a topic with it and waits
// until every running broker lists a leader for each partition.
//
// testcontainers-go's reaper (Ryuk) is an image that cannot be pulled here, and
// its default host is the Docker gateway address, which must receive no
// traffic: the package sets TESTCONTAINERS_RYUK_DISABLED=true and
// TESTCONTAINERS_HOST_OVERRIDE=127.0.0.1 when they are unset, before
// testcontainers-go reads its configuration. Without the reaper, Terminate is
// the only cleanup: callers must call it (a leaked container is visible with
// `docker ps --filter label=org.kreactor.cluster`).
package containers
