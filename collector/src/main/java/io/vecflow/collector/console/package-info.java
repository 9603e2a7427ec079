/**
 * The web console: an HTTP server (the JDK's {@code com.sun.net.httpserver}) that serves the browser UI (static files
 * and the echarts bundle from the jar, no CDN) and the JSON API of docs/console-api.md through an {@link
 * io.vecflow.collector.console.ApiHandler}, with the console's limits (body size, methods) and authentication
 * (none, HTTP basic with PBKDF2 hashes, a trusted reverse proxy's header). The top layer of the collector, beside
 * {@code metrics}: it may use every package below; none uses it.
 */
package io.vecflow.collector.console;
