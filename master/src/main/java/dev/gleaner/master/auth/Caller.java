package dev.gleaner.master.auth;

/**
 * Who asks the master to change a job or the cluster: the holder of the shared secret (one trust
 * domain: anybody may do anything), a client with its own token (its own jobs only), or an operator
 * (anybody's job, workers and tokens). A reader of the web page on the master's own machine who
 * showed no credential is anonymous: it reads what a client reads of jobs that are not its own.
 *
 * @param kind which of the four
 * @param id the token's id; empty for the shared secret
 */
public record Caller(Kind kind, String id) {
  public enum Kind { SHARED_SECRET, CLIENT, OPERATOR, ANONYMOUS }

  /** The shared secret's holder, and whatever runs inside the master's own process. */
  public static final Caller TRUSTED = new Caller(Kind.SHARED_SECRET, "");

  /** The web page on the master's own machine, opened without a credential. */
  public static final Caller ANONYMOUS = new Caller(Kind.ANONYMOUS, "");

  public static Caller client(String id) {
    return new Caller(Kind.CLIENT, id);
  }

  public static Caller operator(String id) {
    return new Caller(Kind.OPERATOR, id);
  }

  /** What a job it submits records as its owner: "client:NAME", "operator:NAME", or empty. */
  public String owner() {
    return switch (kind) {
      case SHARED_SECRET -> "";
      case CLIENT -> "client:" + id;
      case OPERATOR -> "operator:" + id;
      case ANONYMOUS -> "";
    };
  }

  /** Whether it may act as an operator: drain workers, revoke tokens, change anybody's job. */
  public boolean isOperator() {
    return kind == Kind.SHARED_SECRET || kind == Kind.OPERATOR;
  }

  /**
   * Null if it may {@code verb} job {@code jobId}, owned by {@code owner}; else why not, in one
   * sentence naming the owner and who could.
   */
  public String refusal(String verb, String jobId, String owner) {
    if (isOperator() || owner.equals(owner())) {
      // (an anonymous reader's owner is empty: it reads a job without an owner, as on a master without tokens)
      return null;
    }
    String you = kind == Kind.ANONYMOUS ? "you showed no credential" : "you are client '" + id + "'";
    if (owner.isEmpty()) {
      return "job " + jobId + " has no owner (submitted with the shared secret, or before jobs had owners); only an"
          + " operator may " + verb + " it (" + you + ")";
    }
    return "job " + jobId + " belongs to " + ownerText(owner) + "; only " + ownerText(owner)
        + " or an operator may " + verb + " it (" + you + ")";
  }

  /** "client 'alice'" for "client:alice". */
  public static String ownerText(String owner) {
    int colon = owner.indexOf(':');
    return colon < 0 ? owner : owner.substring(0, colon) + " '" + owner.substring(colon + 1) + "'";
  }

  /** A request refused because the job is another client's: its message names the owner. */
  public static final class NotAllowed extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    public NotAllowed(String message) {
      super(message);
    }
  }

  @Override
  public String toString() {
    return switch (kind) {
      case SHARED_SECRET -> "the shared secret's holder";
      case ANONYMOUS -> "a reader without a credential";
      default -> ownerText(owner());
    };
  }
}
