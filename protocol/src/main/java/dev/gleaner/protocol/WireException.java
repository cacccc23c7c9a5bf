package dev.gleaner.protocol;

import io.netty.handler.codec.DecoderException;

/** A frame that cannot be accepted, with the error code to send back before closing. */
public final class WireException extends DecoderException {
  private static final long serialVersionUID = 1L;
  private final Error.Code code;

  public WireException(Error.Code code, String message, Throwable cause) {
    super(message, cause);
    this.code = code;
  }

  public Error.Code code() {
    return code;
  }
}
