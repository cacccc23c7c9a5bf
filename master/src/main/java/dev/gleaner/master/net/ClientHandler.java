package dev.gleaner.master.net;

import dev.gleaner.common.control.Controller;
import dev.gleaner.master.auth.Caller;
import dev.gleaner.master.loop.ControlLoop;
import dev.gleaner.master.loop.JobOutcome;
import dev.gleaner.master.status.ReadableStatus;
import dev.gleaner.master.auth.Revocations;
import dev.gleaner.protocol.Auth;
import dev.gleaner.protocol.DrainReply;
import dev.gleaner.protocol.Envelope;
import dev.gleaner.protocol.Error;
import dev.gleaner.protocol.JobReply;
import dev.gleaner.protocol.Messages;
import dev.gleaner.protocol.RevocationsReply;
import dev.gleaner.protocol.Revoke;
import dev.gleaner.protocol.RevokeReply;
import dev.gleaner.protocol.Role;
import dev.gleaner.protocol.SetShare;
import dev.gleaner.protocol.Share;
import dev.gleaner.protocol.SharesReply;
import dev.gleaner.protocol.SubmitReply;
import io.netty.channel.ChannelHandlerContext;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A welcomed client's or operator's connection: its calls (submit, status, result, cancel, forget,
 * and the operator's revoke, revocation list and drain), each answered with a reply or an Error
 * that says why not, as the {@link Caller} it logged in as. Most answers come from the control loop's
 * thread; a result is streamed as the connection drains ({@link ResultStream}).
 */
final class ClientHandler extends ConnectionHandler {
  private static final Logger log = LoggerFactory.getLogger(ClientHandler.class);

  private final Login login;
  /** Who this session acts as. */
  private final Caller caller;
  /** The result being streamed to it, or null. */
  private ResultStream result;

  ClientHandler(Services services, Login login) {
    super(services);
    this.login = login;
    this.caller = login.caller();
  }

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, Envelope msg) {
    if (closing()) {
      return;
    }
    switch (msg.getBodyCase()) {
      case SUBMIT -> submit(ctx, msg);
      case STATUS_REQUEST -> status(ctx, msg);
      case RESULT_REQUEST -> {
        String job = msg.getResultRequest().getJobId();
        services.loop().result(job, caller).whenComplete((bytes, err) -> ctx.executor().execute(() -> {
          if (err != null) {
            Throwable cause = unwrap(err);
            log.info("{} from {} asked for the result of {}: {}", caller, ctx.channel().remoteAddress(), job,
                cause.getMessage());
            ctx.writeAndFlush(Messages.error(refusalCode(cause), cause.getMessage()));
          } else {
            result = new ResultStream(job, bytes);
            pumpResult(ctx);
          }
        }));
      }
      case CANCEL_JOB -> {
        String reason = msg.getCancelJob().getReason().isBlank() ? "asked by " + ctx.channel().remoteAddress()
            : msg.getCancelJob().getReason();
        reply(ctx, msg.getCancelJob().getJobId(), services.loop().cancel(msg.getCancelJob().getJobId(), reason,
            Integer.toUnsignedLong(msg.getCancelJob().getGraceMs()), caller));
      }
      case FORGET_JOB -> reply(ctx, msg.getForgetJob().getJobId(),
          services.loop().forget(msg.getForgetJob().getJobId(), caller));
      case REVOKE -> revoke(ctx, msg.getRevoke());
      case REVOCATIONS_REQUEST -> {
        if (operatorOnly(ctx, "list the revoked tokens")) {
          RevocationsReply.Builder b = RevocationsReply.newBuilder();
          services.revocations().list().forEach(r -> b.addRevocations(Revocations.proto(r)));
          ctx.writeAndFlush(Envelope.newBuilder().setRevocationsReply(b).build());
        }
      }
      case DRAIN_REQUEST -> drain(ctx, msg);
      case SET_SHARE -> share(ctx, msg.getSetShare());
      case HEARTBEAT -> { }
      case GOODBYE -> ctx.close();
      default -> refuse(ctx, Error.Code.UNEXPECTED_MESSAGE, "a client may not send " + msg.getBodyCase());
    }
  }

  private void submit(ChannelHandlerContext ctx, Envelope msg) {
    try {
      // each reply is made on this connection's event loop, where it is written, not on the control thread
      services.jobs().submit(msg.getSubmit().getSpec(), caller).whenCompleteAsync((submitted, err) -> {
        Throwable cause = unwrap(err);
        if (cause instanceof IllegalArgumentException bad) {
          log.info("job from {} refused: {}", ctx.channel().remoteAddress(), bad.getMessage());
          ctx.writeAndFlush(Messages.error(refusalCode(bad), bad.getMessage()));
        } else if (cause != null) {
          log.error("cannot store a job from {}: {}", ctx.channel().remoteAddress(), cause.getMessage(), cause);
          ctx.writeAndFlush(Messages.error(Error.Code.INTERNAL, "the master could not store the job: "
              + cause.getMessage()));
        } else {
          ctx.writeAndFlush(Envelope.newBuilder().setSubmitReply(SubmitReply.newBuilder().setJobId(submitted.id())
              .setExisting(submitted.existing())).build());
        }
      }, ctx.executor());
    } catch (IllegalArgumentException e) {
      log.info("job from {} refused: {}", ctx.channel().remoteAddress(), e.getMessage());
      ctx.writeAndFlush(Messages.error(Error.Code.BAD_JOB, e.getMessage()));
    }
  }

  private void status(ChannelHandlerContext ctx, Envelope msg) {
    long arrived = System.nanoTime();
    boolean timed = msg.getStatusRequest().getWaitMs() == 0;
    services.status().status(msg.getStatusRequest().getJobId(), services.registry(),
          msg.getStatusRequest().getWaitMs(), msg.getStatusRequest().getJobOnly(),
          msg.getStatusRequest().getAllWorkers())
        .whenCompleteAsync((reply, err) -> {
          if (timed) {
            services.metrics().statusReply.record(System.nanoTime() - arrived, TimeUnit.NANOSECONDS);
          }
          if (err != null) {
            log.error("cannot build a status reply: {}", err.toString(), err);
            ctx.writeAndFlush(Messages.error(Error.Code.INTERNAL, "the master could not build the status: " + err));
            return;
          }
          Envelope frame = Envelope.newBuilder()
              .setStatusReply(ReadableStatus.of(reply, caller, services.config().privateJobs())).build();
          int limit = services.config().maxFrameBytes();
          if (frame.getSerializedSize() + 4 > limit) {
            // a summary should always fit; if it does not, say so instead of failing silently
            String why = "the status reply is " + frame.getSerializedSize() + " bytes, over the frame limit of "
                + limit + " bytes (--max-frame-mib); ask for one job";
            log.error("cannot send a status reply to {}: {}", ctx.channel().remoteAddress(), why);
            ctx.writeAndFlush(Messages.error(Error.Code.FRAME_TOO_LARGE, why));
          } else {
            ctx.writeAndFlush(frame);
          }
        }, ctx.executor());
  }

  /** Answers a cancel or a forget: a JobReply, or an Error that says why not. */
  private static void reply(ChannelHandlerContext ctx, String jobId,
      CompletableFuture<JobOutcome> outcome) {
    outcome.whenComplete((o, err) -> {
      if (err != null) {
        ctx.writeAndFlush(Messages.error(Error.Code.INTERNAL, "the master could not do it: " + err.getMessage()));
      } else if (o.state() == null) {
        ctx.writeAndFlush(Messages.error(o.notAllowed() ? Error.Code.NOT_ALLOWED : Error.Code.BAD_JOB, o.message()));
      } else {
        ctx.writeAndFlush(Envelope.newBuilder().setJobReply(JobReply.newBuilder().setJobId(jobId)
            .setState(o.state()).setMessage(o.message())).build());
      }
    });
  }

  /** The cause a future failed with, not the CompletionException around it; null if it did not fail. */
  static Throwable unwrap(Throwable err) {
    return err instanceof CompletionException && err.getCause() != null ? err.getCause() : err;
  }

  /** NOT_ALLOWED for a request refused as another client's job, else BAD_JOB. */
  private static Error.Code refusalCode(Throwable refused) {
    return refused instanceof Caller.NotAllowed ? Error.Code.NOT_ALLOWED : Error.Code.BAD_JOB;
  }

  /**
   * True if this session may act as an operator; else answers NOT_ALLOWED with a sentence (the
   * session stays open: the client may go on reading) and returns false.
   */
  private boolean operatorOnly(ChannelHandlerContext ctx, String what) {
    if (caller.isOperator()) {
      return true;
    }
    log.info("{} from {} may not {}: refused", caller, ctx.channel().remoteAddress(), what);
    ctx.writeAndFlush(Messages.error(Error.Code.NOT_ALLOWED, "only an operator may " + what + " (you are " + caller
        + "); an operator token is made with `gleaner token operator NAME`"));
    return false;
  }

  /** An operator's `gleaner drain`: the worker asked to leave, or why not. */
  private void drain(ChannelHandlerContext ctx, Envelope msg) {
    if (!operatorOnly(ctx, "ask worker '" + msg.getDrainRequest().getWorkerId() + "' to leave")) {
      return;
    }
    String reason = msg.getDrainRequest().getReason().isBlank() ? "asked by " + ctx.channel().remoteAddress()
        : msg.getDrainRequest().getReason();
    String worker = msg.getDrainRequest().getWorkerId();
    services.loop().askToLeave(worker, reason).whenComplete((asked, err) -> {
      if (err != null) {
        ctx.writeAndFlush(Messages.error(Error.Code.INTERNAL, "the master could not ask worker " + worker
            + " to leave: " + err.getMessage()));
      } else if (!asked) {
        ctx.writeAndFlush(Messages.error(Error.Code.UNKNOWN_WORKER, "no worker '" + worker + "' is connected"
            + " (gleaner status lists them)"));
      } else {
        ctx.writeAndFlush(Envelope.newBuilder().setDrainReply(DrainReply.newBuilder().setWorkerId(worker)).build());
      }
    });
  }

  /** An operator's `gleaner share`: the weight stored, then the workers shared by it, then every weight set. */
  private void share(ChannelHandlerContext ctx, SetShare r) {
    if (!operatorOnly(ctx, "set owners' shares")) {
      return;
    }
    String owner = r.getOwner();
    double weight = r.getWeight();
    if (!owner.matches("(client|operator):[^\\p{Cntrl}]{1,200}")) {
      // the name as given, cut short and without control characters: the refusal stays one line
      String shown = owner.replaceAll("\\p{Cntrl}", "?");
      ctx.writeAndFlush(Messages.error(Error.Code.UNEXPECTED_MESSAGE, "a share names an owner as the master records"
          + " it, client:NAME or operator:NAME (`gleaner jobs` shows each job's), not '"
          + (shown.length() > 80 ? shown.substring(0, 80) + "..." : shown) + "'"));
      return;
    }
    String refusal = Controller.shareRefusal(weight);
    if (refusal != null) {
      ctx.writeAndFlush(Messages.error(Error.Code.UNEXPECTED_MESSAGE, refusal));
      return;
    }
    services.loop().share(owner, weight).whenComplete((all, err) -> ctx.executor().execute(() -> {
      if (err != null) {
        Throwable cause = unwrap(err);
        log.error("cannot set the share of {}: {}", owner, cause.toString(), cause);
        ctx.writeAndFlush(Messages.error(Error.Code.INTERNAL, "the master could not set the share: "
            + String.valueOf(cause.getMessage()).lines().findFirst().orElse("")));
        return;
      }
      SharesReply.Builder b = SharesReply.newBuilder();
      all.forEach((o, w) -> b.addShares(Share.newBuilder().setOwner(o).setWeight(w)));
      ctx.writeAndFlush(Envelope.newBuilder().setSharesReply(b).build());
    }));
  }

  /** An operator's `gleaner token revoke`: stored, then the id's sessions closed, then answered. */
  private void revoke(ChannelHandlerContext ctx, Revoke r) {
    if (!operatorOnly(ctx, "revoke tokens")) {
      return;
    }
    if (services.config().auth().clusterKey() == null) {
      ctx.writeAndFlush(Messages.error(Error.Code.BAD_JOB, "this master takes no tokens (it has no cluster key): there"
          + " is nothing to revoke; under the shared secret every peer is trusted alike"));
      return;
    }
    Role role = r.getRole();
    String id = r.getId();
    if (role != Role.WORKER && role != Role.CLIENT && role != Role.OPERATOR && role != Role.RELAY) {
      ctx.writeAndFlush(Messages.error(Error.Code.UNEXPECTED_MESSAGE, "a revocation names a worker, client, operator"
          + " or relay, not " + role));
      return;
    }
    if (id.isBlank() || id.length() > 200) {
      ctx.writeAndFlush(Messages.error(Error.Code.UNEXPECTED_MESSAGE,
          "a revocation names an id of 1 to 200 characters"));
      return;
    }
    String reason = r.getReason().length() > 500 ? r.getReason().substring(0, 500) : r.getReason();
    services.revocations().revoke(role, id, caller, reason, services.ticker().epochMillis()).whenComplete((rec, err) ->
        ctx.executor().execute(() -> {
          if (err != null) {
            log.error("cannot store the revocation of {} '{}': {}", Auth.roleName(role), id, err.toString(), err);
            ctx.writeAndFlush(Messages.error(Error.Code.INTERNAL, "the master could not store the revocation: "
                + err.getMessage()));
            return;
          }
          String why = "the " + Auth.roleName(role) + " token of '" + id + "' was " + Revocations.describe(rec);
          // each session ends on its own thread, after this task: an operator revoking itself gets the reply first
          int closed = services.tokenSessions().endAll(role, id, why);
          log.warn("{}; {} live session(s) closed; its logins are refused from now on; a new token for it needs"
              + " generation {}", why, closed, rec.nextGeneration());
          ctx.writeAndFlush(Envelope.newBuilder().setRevokeReply(RevokeReply.newBuilder()
              .setRevocation(Revocations.proto(rec)).setSessionsClosed(closed)).build());
        }));
  }

  /** Writes result parts while the connection takes them; the rest follows when it drains. */
  private void pumpResult(ChannelHandlerContext ctx) {
    if (result != null && result.pump(ctx)) {
      result = null;
    }
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    if (ctx.channel().isWritable() && result != null) {
      pumpResult(ctx);
    }
    ctx.fireChannelWritabilityChanged();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    login.leave(services.tokenSessions());
    ctx.fireChannelInactive();
  }
}
