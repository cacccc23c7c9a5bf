package dev.gleaner.master.net;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gleaner.master.auth.Caller;
import dev.gleaner.master.loop.JobOutcome;
import dev.gleaner.master.status.ReadableStatus;
import dev.gleaner.master.web.Durations;
import dev.gleaner.master.web.JobFields;
import dev.gleaner.master.web.StatusMaps;
import dev.gleaner.master.web.WebAssets;
import dev.gleaner.protocol.JobSpec;
import dev.gleaner.protocol.JobStatus;
import dev.gleaner.protocol.StatusReply;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The jobs over HTTP, on the master's one port: what {@code gleaner submit}, {@code jobs}, {@code
 * wait}, {@code cancel}, {@code result} and {@code forget} do, with the same credentials (a client's
 * or an operator's token as {@code NAME:BASE64}, or the shared secret, always in an {@code
 * Authorization: Bearer} header: a browser's form cannot send one, so no other site can submit in a
 * visitor's name) and the same authorization (owners, operators, {@code --private-jobs}). The
 * description is {@code GET /api/openapi.json} ({@code docs/http-api.md} explains it).
 *
 * <ul>
 *   <li>{@code POST /api/jobs}: the job file's fields as JSON; 201 and {@code {"id", "existing"}}. An
 *       {@code Idempotency-Key} header is the job's key: the same key again returns the same job.
 *   <li>{@code GET /api/jobs}: every job as its reader may read it ({@code {"jobs": [...]}}).
 *   <li>{@code GET /api/jobs/ID}: one job; {@code ?wait=MS} (up to 60000) answers once it has ended
 *       or when the wait is over (a long poll: a client following a job hears of its end at once).
 *   <li>{@code POST /api/jobs/ID/cancel}: {@code {"reason", "grace"}}, both optional (grace as
 *       {@code gleaner cancel --grace} takes it); {@code DELETE /api/jobs/ID}: forget an ended job.
 *   <li>{@code GET /api/jobs/ID/result}: the whole result, as text.
 * </ul>
 *
 * Every error is {@code {"error": "one line"}} with its status: 400 a bad request or job, 401 no or
 * a bad credential, 403 not allowed (another client's job, an address the web does not answer), 404
 * no such job, 405 a method the path does not take, 409 a job not in a state for it.
 */
final class JobsApi {
  private static final Logger log = LoggerFactory.getLogger(JobsApi.class);
  static final String JSON = "application/json";
  private static final ObjectMapper MAPPER = new ObjectMapper();

  /** One answer: its status, its body and the body's type. */
  record Answer(HttpResponseStatus status, byte[] body, String type) {
    static Answer json(HttpResponseStatus status, Object value) {
      try {
        return new Answer(status, MAPPER.writeValueAsBytes(value), JSON);
      } catch (JsonProcessingException e) {
        throw new IllegalStateException("cannot write JSON: " + e.getMessage(), e);
      }
    }

    static Answer error(HttpResponseStatus status, String line) {
      return json(status, Map.of("error", line));
    }
  }

  private final Services services;

  JobsApi(Services services) {
    this.services = services;
  }

  /** The methods {@code path} takes, for a 405's message and its Allow header. */
  static String allowed(String path) {
    if (path.equals("/api/jobs")) {
      return "GET, HEAD, POST";
    }
    if (path.endsWith("/cancel")) {
      return "POST";
    }
    if (path.equals("/api/openapi.json") || path.endsWith("/result")) {
      return "GET, HEAD";
    }
    return "GET, HEAD, DELETE";
  }

  private static Answer notAllowed(String path, HttpMethod method) {
    return Answer.error(HttpResponseStatus.METHOD_NOT_ALLOWED, HttpHandler.printable(path) + " takes "
        + allowed(path) + ", not " + method);
  }

  /** Whether {@code path} is the API's. */
  static boolean handles(String path) {
    return path.equals("/api/jobs") || path.startsWith("/api/jobs/") || path.equals("/api/openapi.json");
  }

  /** Answers the request of {@code caller} (already logged in), on the connection's own thread. */
  CompletableFuture<Answer> answer(ChannelHandlerContext ctx, FullHttpRequest request, QueryStringDecoder uri,
      Caller caller) {
    String path = uri.path();
    HttpMethod method = request.method();
    List<String> parts = List.of(path.substring(1).split("/", -1));
    try {
      if (path.equals("/api/openapi.json")) {
        return get(path, method, () -> done(new Answer(HttpResponseStatus.OK,
            WebAssets.get("/api/openapi.json").bytes(), JSON)));
      }
      if (parts.size() == 2) {
        if (method.equals(HttpMethod.POST)) {
          return submit(request, caller);
        }
        if (!method.equals(HttpMethod.GET) && !method.equals(HttpMethod.HEAD)) {
          return done(notAllowed(path, method));
        }
        return list(caller);
      }
      String id = parts.get(2);
      if (id.isEmpty() || parts.size() > 4) {
        return done(Answer.error(HttpResponseStatus.NOT_FOUND, "no such path: " + HttpHandler.printable(path)));
      }
      if (parts.size() == 3) {
        if (method.equals(HttpMethod.DELETE)) {
          return outcome(services.loop().forget(id, caller));
        }
        return get(path, method, () -> job(id, uri, caller));
      }
      return switch (parts.get(3)) {
        case "cancel" -> method.equals(HttpMethod.POST) ? cancel(id, request, caller)
            : done(notAllowed(path, method));
        case "result" -> get(path, method, () -> result(id, caller));
        default -> done(Answer.error(HttpResponseStatus.NOT_FOUND, "no such path: " + HttpHandler.printable(path)
            + " (a job has /cancel and /result)"));
      };
    } catch (IllegalArgumentException e) {
      return done(Answer.error(HttpResponseStatus.BAD_REQUEST, e.getMessage()));
    }
  }

  private interface Get {
    CompletableFuture<Answer> run();
  }

  private static CompletableFuture<Answer> get(String path, HttpMethod method, Get get) {
    if (!method.equals(HttpMethod.GET) && !method.equals(HttpMethod.HEAD)) {
      return done(notAllowed(path, method));
    }
    return get.run();
  }

  private static CompletableFuture<Answer> done(Answer a) {
    return CompletableFuture.completedFuture(a);
  }

  private static JsonNode body(FullHttpRequest request, boolean required) {
    String text = request.content().toString(StandardCharsets.UTF_8);
    if (text.isBlank()) {
      if (required) {
        throw new IllegalArgumentException("the request has no body: send the job's fields as JSON");
      }
      return MAPPER.createObjectNode();
    }
    try {
      return MAPPER.readTree(text);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("the body is not JSON: " + e.getOriginalMessage().lines().findFirst()
          .orElse("") + (e.getLocation() == null ? "" : " (line " + e.getLocation().getLineNr() + ", column "
              + e.getLocation().getColumnNr() + ")"), e);
    }
  }

  private CompletableFuture<Answer> submit(FullHttpRequest request, Caller caller) {
    JobSpec spec = JobFields.fromTree(body(request, true), "the job");
    String key = request.headers().get("Idempotency-Key");
    if (key != null && !key.isBlank()) {
      spec = spec.toBuilder().setKey(key.strip()).build();
    }
    return services.jobs().submit(spec, caller).handle((s, err) -> {
      Throwable cause = ClientHandler.unwrap(err);
      if (cause == null) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", s.id());
        m.put("existing", s.existing());
        return Answer.json(s.existing() ? HttpResponseStatus.OK : HttpResponseStatus.CREATED, m);
      }
      if (cause instanceof IllegalArgumentException bad) {
        log.info("job from {} refused: {}", caller, bad.getMessage());
        return Answer.error(bad instanceof Caller.NotAllowed ? HttpResponseStatus.FORBIDDEN
            : HttpResponseStatus.BAD_REQUEST, bad.getMessage());
      }
      log.error("cannot store a job from {}: {}", caller, cause.toString(), cause);
      return Answer.error(HttpResponseStatus.INTERNAL_SERVER_ERROR, "the master could not store the job: "
          + cause.getMessage());
    });
  }

  private CompletableFuture<Answer> list(Caller caller) {
    return services.status().status("", services.registry(), 0, false, false).handle((reply, err) -> {
      if (err != null) {
        return failed("the status", err);
      }
      StatusReply r = ReadableStatus.of(reply, caller, services.config().privateJobs());
      List<Object> jobs = new ArrayList<>();
      for (JobStatus j : r.getJobsList()) {
        jobs.add(StatusMaps.job(j));
      }
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("jobs", jobs);
      m.put("omitted", r.getJobsOmitted());
      return Answer.json(HttpResponseStatus.OK, m);
    });
  }

  private CompletableFuture<Answer> job(String id, QueryStringDecoder uri, Caller caller) {
    long wait = 0;
    List<String> w = uri.parameters().get("wait");
    if (w != null && !w.isEmpty()) {
      try {
        wait = Long.parseLong(w.get(0));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("?wait= takes milliseconds (0 to 60000), not '" + w.get(0) + "'", e);
      }
      if (wait < 0 || wait > 60_000) {
        throw new IllegalArgumentException("?wait= takes milliseconds from 0 to 60000, not " + wait);
      }
    }
    return services.status().status(id, services.registry(), wait, true, false).handle((reply, err) -> {
      if (err != null) {
        return failed("the job's status", err);
      }
      StatusReply r = ReadableStatus.of(reply, caller, services.config().privateJobs());
      for (JobStatus j : r.getJobsList()) {
        if (j.getJobId().equals(id)) {
          return Answer.json(HttpResponseStatus.OK, StatusMaps.job(j));
        }
      }
      return Answer.error(HttpResponseStatus.NOT_FOUND, "no job '" + id + "' (GET /api/jobs lists them)");
    });
  }

  private CompletableFuture<Answer> cancel(String id, FullHttpRequest request, Caller caller) {
    JsonNode body = body(request, false);
    if (!body.isObject()) {
      throw new IllegalArgumentException("a cancel's body is a JSON object: {\"reason\": ..., \"grace\": \"30s\"}");
    }
    for (java.util.Iterator<String> it = body.fieldNames(); it.hasNext(); ) {
      String k = it.next();
      if (!k.equals("reason") && !k.equals("grace")) {
        throw new IllegalArgumentException("unknown key '" + k + "' in a cancel; known keys: reason, grace");
      }
    }
    String reason = body.path("reason").asText("");
    long graceMs = body.has("grace") ? Durations.parse("grace", body.get("grace").asText()).toMillis() : 0;
    return outcome(services.loop().cancel(id, reason.isBlank() ? "cancelled over HTTP by " + caller : reason,
        graceMs, caller));
  }

  private CompletableFuture<Answer> result(String id, Caller caller) {
    return services.loop().result(id, caller).handle((bytes, err) -> {
      Throwable cause = ClientHandler.unwrap(err);
      if (cause == null) {
        return new Answer(HttpResponseStatus.OK, bytes, "text/plain; charset=utf-8");
      }
      if (cause instanceof Caller.NotAllowed) {
        return Answer.error(HttpResponseStatus.FORBIDDEN, cause.getMessage());
      }
      if (cause instanceof IllegalArgumentException) {
        return Answer.error(cause instanceof JobOutcome.UnknownJob ? HttpResponseStatus.NOT_FOUND
            : HttpResponseStatus.CONFLICT, cause.getMessage());
      }
      return failed("the result", cause);
    });
  }

  /** A cancel's or a forget's answer: the job's state after it, or why not. */
  private static CompletableFuture<Answer> outcome(CompletableFuture<JobOutcome> outcome) {
    return outcome.handle((o, err) -> {
      if (err != null) {
        return failed("it", err);
      }
      if (o.state() == null) {
        return Answer.error(o.notAllowed() ? HttpResponseStatus.FORBIDDEN : o.unknownJob()
            ? HttpResponseStatus.NOT_FOUND : HttpResponseStatus.CONFLICT, o.message());
      }
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("state", o.state());
      m.put("message", o.message());
      return Answer.json(HttpResponseStatus.OK, m);
    });
  }


  private static Answer failed(String what, Throwable err) {
    Throwable cause = ClientHandler.unwrap(err);
    log.error("the master could not build {} for an HTTP request: {}", what, cause.toString(), cause);
    return Answer.error(HttpResponseStatus.INTERNAL_SERVER_ERROR, "the master could not do " + what + ": "
        + cause.getMessage());
  }
}
