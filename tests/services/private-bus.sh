# Sourced by the services that start a private D-Bus session (keyring.sh, notifications.sh):
# private_bus_config FILE DIR writes a session bus configuration listening in DIR that knows no
# service files (nothing is started on demand: only what the script itself starts answers).
private_bus_config() {
  cat >"$1" <<CONF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:dir=$2</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
CONF
}
