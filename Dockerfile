# syntax=docker/dockerfile:1
# vecflow image: the `vecflow` command (collector, hsflowd, dataplane, demo, decode, psample).
#   docker build -t vecflow:local .        docker run --rm vecflow:local --help
# compose.yaml builds it for the collector, agent and demo services.

# --- build: the runnable distribution (dist/target/vecflow.jar + dist/target/lib/) -----------------
FROM eclipse-temurin:25-jdk AS build
WORKDIR /src
COPY . .
# Only dist and the modules it needs (not fuzz/ or bench/); tests run in CI, not in the image build, and the
# Debian packages (their jlink runtimes and AOT training) are not needed in the image.
# The cache mount keeps the Maven repository between builds.
RUN --mount=type=cache,target=/root/.m2 \
    ./mvnw -B -ntp -Dmaven.test.skip=true -Dvecflow.deb.skip=true -pl dist -am package \
 && mkdir -p /opt/vecflow \
 && cp dist/target/vecflow.jar /opt/vecflow/ \
 && cp -r dist/target/lib /opt/vecflow/lib

# --- runtime ------------------------------------------------------------------------------------------
FROM eclipse-temurin:25-jre
# curl: the compose health check reads the collector's metrics endpoint with it.
RUN apt-get update \
 && apt-get install -y --no-install-recommends curl \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /opt/vecflow /opt/vecflow
WORKDIR /var/lib/vecflow
# 6343/udp sFlow in (collector); 9477/tcp Prometheus metrics (collector).
EXPOSE 6343/udp 9477/tcp
# Same JVM flags as the ./vecflow launcher: FFM (netlink) needs native access; Netty and Kafka still
# touch sun.misc.Unsafe. VECFLOW_JAVA_OPTS adds more (heap size, GC logging, ...).
ENV VECFLOW_JAVA_OPTS=""
ENTRYPOINT ["/bin/sh", "-c", "exec java --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow $VECFLOW_JAVA_OPTS -jar /opt/vecflow/vecflow.jar \"$@\"", "vecflow"]
CMD ["--help"]
