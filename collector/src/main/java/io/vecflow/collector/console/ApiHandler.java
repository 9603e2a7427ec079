package io.vecflow.collector.console;

/**
 * What answers the console's JSON API (docs/console-api.md) for the {@link ConsoleServer}: the server owns HTTP
 * (limits, authentication, headers), the handler owns the answers.
 */
@FunctionalInterface
public interface ApiHandler {
    /**
     * An answer: an HTTP status and a JSON body.
     *
     * @param status HTTP status (200, 400, 404, 405, 503 ...)
     * @param json the body, a JSON document (an object {@code {"error": ...}} for every status but 200)
     */
    record Response(int status, String json) {}

    /**
     * Answers one API request.
     *
     * @param method {@code GET} or {@code POST}
     * @param path the path after {@code /api/v0/}, e.g. {@code graph/line}
     * @param body the request body (UTF-8, at most {@link ConsoleServer#MAX_BODY_BYTES}), empty for GET
     * @return the answer; an exception becomes a 500 without detail (logged by the server)
     * @throws Exception on a failure the handler did not turn into an answer
     */
    Response handle(String method, String path, String body) throws Exception;
}
