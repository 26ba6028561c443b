package io.snowflakec;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import javax.net.SocketFactory;

/**
 * A PostgreSQL JDBC {@code socketFactory} that connects to a Unix socket (its {@code
 * socketFactoryArg}, the path of {@code .s.PGSQL.PORT}) whatever host and port the URL names,
 * through the JDK's own Unix-domain channels. The tests' server listens on no TCP port, and a
 * socket file is reached from every network namespace. A copy of java-integrations/testing's, for
 * the lease tests of this module ({@link PgServer}).
 */
public final class UnixSocketFactory extends SocketFactory {
  private final Path path;

  /**
   * Called by the driver with the URL's {@code socketFactoryArg}.
   *
   * @param path the socket file
   */
  public UnixSocketFactory(String path) {
    this.path = Path.of(path);
  }

  @Override
  public Socket createSocket() {
    return new UnixSocket(path);
  }

  @Override
  public Socket createSocket(String host, int port) throws IOException {
    return connected();
  }

  @Override
  public Socket createSocket(String host, int port, InetAddress localHost, int localPort)
      throws IOException {
    return connected();
  }

  @Override
  public Socket createSocket(InetAddress host, int port) throws IOException {
    return connected();
  }

  @Override
  public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort)
      throws IOException {
    return connected();
  }

  private Socket connected() throws IOException {
    Socket socket = createSocket();
    socket.connect(null);
    return socket;
  }

  /**
   * The parts of {@link Socket} that the driver uses, over a Unix-domain channel; TCP options are
   * kept and ignored. Reads and writes go straight to the channel, which takes them at the same
   * time (the streams of {@link java.nio.channels.Channels} would serialise them).
   */
  private static final class UnixSocket extends Socket {
    private final Path path;
    private SocketChannel channel;
    private int soTimeout;
    private boolean tcpNoDelay;
    private boolean keepAlive;

    UnixSocket(Path path) {
      this.path = path;
    }

    @Override
    public void connect(SocketAddress ignored) throws IOException {
      connect(ignored, 0);
    }

    @Override
    public synchronized void connect(SocketAddress ignored, int timeout) throws IOException {
      SocketChannel opened = SocketChannel.open(StandardProtocolFamily.UNIX);
      try {
        opened.connect(UnixDomainSocketAddress.of(path));
      } catch (IOException e) {
        opened.close();
        throw new IOException("cannot connect to the PostgreSQL socket " + path, e);
      }
      channel = opened;
    }

    @Override
    public boolean isConnected() {
      return channel != null && channel.isConnected();
    }

    @Override
    public boolean isClosed() {
      return channel != null && !channel.isOpen();
    }

    @Override
    public InputStream getInputStream() {
      return new InputStream() {
        @Override
        public int read() throws IOException {
          byte[] one = new byte[1];
          return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
          return len == 0 ? 0 : channel.read(ByteBuffer.wrap(b, off, len));
        }
      };
    }

    @Override
    public OutputStream getOutputStream() {
      return new OutputStream() {
        @Override
        public void write(int b) throws IOException {
          write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
          ByteBuffer buffer = ByteBuffer.wrap(b, off, len);
          while (buffer.hasRemaining()) {
            channel.write(buffer);
          }
        }
      };
    }

    @Override
    public synchronized void close() throws IOException {
      if (channel != null) {
        channel.close();
      }
    }

    @Override
    public void shutdownInput() throws IOException {
      channel.shutdownInput();
    }

    @Override
    public void shutdownOutput() throws IOException {
      channel.shutdownOutput();
    }

    @Override
    public synchronized void setSoTimeout(int timeout) {
      soTimeout = timeout;
    }

    @Override
    public synchronized int getSoTimeout() {
      return soTimeout;
    }

    @Override
    public void setTcpNoDelay(boolean on) {
      tcpNoDelay = on;
    }

    @Override
    public boolean getTcpNoDelay() {
      return tcpNoDelay;
    }

    @Override
    public void setKeepAlive(boolean on) {
      keepAlive = on;
    }

    @Override
    public boolean getKeepAlive() {
      return keepAlive;
    }
  }
}
