/* bad_input.c: hibari.h refuses bad input with a code and a message, and
 * the process goes on. Prints one "what: CODE (message)" line per check and
 * "c ok" at the end; exits 0 when every code was the expected one.
 * tests/c_and_cpp_programs.rs runs it (with ROS_DOMAIN_ID of its own). */
#include <hibari.h>

#include <stdio.h>
#include <string.h>

static int failures = 0;

static void expect(const char *what, hibari_ret_t got, hibari_ret_t want) {
  printf("%s: %d (%s)\n", what, (int)got, hibari_last_error());
  if (got != want) {
    printf("FAILED %s: expected %d\n", what, (int)want);
    failures++;
  }
}

#define OK(call) expect(#call, (call), HIBARI_OK)

static void nothing(void *user_data) { (void)user_data; }

int main(void) {
  hibari_context_t context = {0};
  hibari_node_t node = {0};
  hibari_publisher_t publisher = {0};
  hibari_subscription_t subscription = {0};

  printf("hibari %s\n", hibari_version());
  expect("null out", hibari_context_init(0, NULL, NULL), HIBARI_ERROR_INVALID_ARGUMENT);
  OK(hibari_context_init(0, NULL, &context));
  expect("null name", hibari_node_create(context, NULL, NULL, &node), HIBARI_ERROR_INVALID_ARGUMENT);
  expect("bad node name", hibari_node_create(context, "no spaces", NULL, &node), HIBARI_ERROR_INVALID_ARGUMENT);
  OK(hibari_node_create(context, "bad_input", NULL, &node));
  expect("unknown type",
         hibari_publisher_create(node, "topic", "no_such_pkg/msg/Nope", NULL, &publisher),
         HIBARI_ERROR_UNKNOWN_TYPE);
  const uint8_t hello[] = {0, 1, 0, 0, 6, 0, 0, 0, 'h', 'e', 'l', 'l', 'o', 0};
  expect("zero handle", hibari_publisher_publish(publisher, hello, sizeof hello), HIBARI_ERROR_INVALID_HANDLE);
  OK(hibari_publisher_create(node, "topic", "std_msgs/msg/String", NULL, &publisher));
  expect("null bytes", hibari_publisher_publish(publisher, NULL, 8), HIBARI_ERROR_INVALID_ARGUMENT);
  expect("not cdr", hibari_publisher_publish(publisher, (const uint8_t *)"abc", 3), HIBARI_ERROR_INVALID_ARGUMENT);

  /* One message through a polled subscription of the same node. */
  OK(hibari_subscription_create(node, "topic", "std_msgs/msg/String", NULL, NULL, NULL, &subscription));
  OK(hibari_publisher_publish(publisher, hello, sizeof hello));
  hibari_sample_t sample;
  bool taken = false;
  OK(hibari_subscription_take(subscription, &sample, &taken));
  if (!taken || sample.len != sizeof hello || memcmp(sample.data, hello, sizeof hello) != 0) {
    printf("FAILED take: taken %d, %zu bytes\n", (int)taken, taken ? sample.len : (size_t)0);
    failures++;
  }
  if (taken) OK(hibari_sample_release(&sample));

  char name[4];
  size_t len = 0;
  expect("small buffer", hibari_node_get_name(node, name, sizeof name, &len), HIBARI_ERROR_BUFFER_TOO_SMALL);
  printf("name needs %zu bytes\n", len + 1);

  OK(hibari_publisher_destroy(publisher));
  expect("destroyed handle", hibari_publisher_publish(publisher, hello, sizeof hello), HIBARI_ERROR_INVALID_HANDLE);
  expect("destroyed twice", hibari_publisher_destroy(publisher), HIBARI_ERROR_INVALID_HANDLE);
  hibari_client_t client;
  OK(hibari_client_create(node, "add", "example_interfaces/srv/AddTwoInts", NULL, &client));
  const uint8_t request[20] = {0, 1, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 3};
  hibari_bytes_t response = {0};
  expect("no server", hibari_client_call(client, request, sizeof request, 100000000, &response),
         HIBARI_ERROR_NOT_FOUND);
  /* A callback group serves the entities of its own node only. */
  hibari_node_t other = {0};
  hibari_callback_group_t group = {0};
  hibari_timer_t timer = {0};
  expect("bad group type", hibari_callback_group_create(node, 7, &group), HIBARI_ERROR_INVALID_ARGUMENT);
  OK(hibari_node_create(context, "bad_input_other", NULL, &other));
  OK(hibari_callback_group_create(other, HIBARI_CALLBACK_GROUP_REENTRANT, &group));
  expect("group of another node", hibari_timer_create_in_group(node, group, 1000000, nothing, NULL, &timer),
         HIBARI_ERROR_INVALID_ARGUMENT);
  OK(hibari_timer_create_in_group(other, group, 1000000, nothing, NULL, &timer));
  OK(hibari_node_destroy(other));
  expect("group of a destroyed node", hibari_callback_group_destroy(group), HIBARI_ERROR_INVALID_HANDLE);
  OK(hibari_node_destroy(node));
  expect("entity of a destroyed node", hibari_client_destroy(client), HIBARI_ERROR_INVALID_HANDLE);
  hibari_qos_t qos = hibari_qos_default();
  qos.history = 42;
  /* Arguments are checked before handles. */
  expect("bad qos", hibari_publisher_create(node, "t", "std_msgs/msg/String", &qos, &publisher),
         HIBARI_ERROR_INVALID_ARGUMENT);
  OK(hibari_context_shutdown(context));
  OK(hibari_context_destroy(context));
  expect("context destroyed twice", hibari_context_destroy(context), HIBARI_ERROR_INVALID_HANDLE);
  printf(failures == 0 ? "c ok\n" : "c FAILED\n");
  return failures == 0 ? 0 : 1;
}
