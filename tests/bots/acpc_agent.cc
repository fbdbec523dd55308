// An ACPC agent for the suite's matches, built on the ACPC reference server's game code
// (game.cc: readGame, readMatchState, printMatchState, isValidAction, raiseIsValid, printAction),
// which the test fetches from a package registry and compiles with this file.
//
//   acpc_agent GAMEDEF HOST PORT SEED
//
// Says VERSION:2.0.0, then for every line: reads it with readMatchState (a line it cannot read
// ends it: "could not read state", exit 3), prints the state back with printMatchState and
// compares (a difference ends it: exit 4), and at its turn answers a random valid action
// (fold 10%, call 65%, raise 25%; a No-Limit raise of a random size between the minimum and the
// maximum, the all-in rarer). It prints each hand's last line, and at the connection's end
// "hands H actions A", exit 0.
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "game.h"

#ifndef READBUF_LEN
#define READBUF_LEN 4096  // the reference code's line length (net.h)
#endif

using namespace project_acpc_server;

static int dial(const char *host, const char *port) {
  struct addrinfo hints, *found;
  memset(&hints, 0, sizeof hints);
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  if (getaddrinfo(host, port, &hints, &found) != 0) return -1;
  int sock = socket(found->ai_family, found->ai_socktype, found->ai_protocol);
  if (sock < 0 || connect(sock, found->ai_addr, found->ai_addrlen) != 0) return -1;
  freeaddrinfo(found);
  int one = 1;
  setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return sock;
}

static Action choose(const Game *game, const State *state) {
  Action action;
  int32_t low = 0, high = 0;
  double draw = drand48();
  action.size = 0;
  action.type = a_fold;
  if (draw < 0.1 && isValidAction(game, state, 0, &action)) return action;
  if (draw >= 0.75 && raiseIsValid(game, state, &low, &high)) {
    action.type = a_raise;
    if (game->bettingType == noLimitBetting) {
      // more small raises than large ones, so that hands often see several rounds
      int32_t span = high - low;
      int32_t size = low + (int32_t)(drand48() * drand48() * (span + 1));
      action.size = size > high ? high : size;
    }
    if (isValidAction(game, state, 0, &action)) return action;
  }
  action.type = a_call;
  action.size = 0;
  return action;
}

// The dealer's match log of HANDS hands of such agents, dealt with the reference code's random
// numbers from SEED and valued by its valueOfState (a split pot shared equally, 2.5 and 2.5):
// "# name/game/hands/seed" header, STATE lines as printState prints them with each position's
// value and name (the seats rotating every hand, as the dealer rotates them), the SCORE line.
static int dealer_log(const char *path, long hands, uint32_t seed) {
  FILE *file = fopen(path, "r");
  Game *game = file ? readGame(file) : NULL;
  if (game == NULL) return 2;
  const char *names[] = {"Alice", "Bob", "Carol"};
  const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
  double score[MAX_PLAYERS] = {0};
  rng_state_t rng;
  init_genrand(&rng, seed);
  srand48(seed);
  printf("# name/game/hands/seed match %s %ld %u\n", base, hands, seed);
  static char line[MAX_LINE_LEN];
  for (long h = 0; h < hands; ++h) {
    State state;
    initState(game, (uint32_t)h, &state);
    dealCards(game, &rng, &state);
    while (!stateFinished(&state)) {
      Action action = choose(game, &state);
      doAction(game, &action, &state);
    }
    if (printState(game, &state, MAX_LINE_LEN, line) < 0) return 5;
    printf("%s:", line);
    for (int p = 0; p < game->numPlayers; ++p) {
      double value = valueOfState(game, &state, p);
      score[(p + h) % game->numPlayers] += value;
      printf(p ? "|%g" : "%g", value);
    }
    for (int p = 0; p < game->numPlayers; ++p)
      printf(p ? "|%s" : ":%s", names[(p + h) % game->numPlayers]);
    printf("\n");
  }
  printf("SCORE");
  for (int p = 0; p < game->numPlayers; ++p) printf(p ? "|%.6f" : ":%.6f", score[p]);
  for (int p = 0; p < game->numPlayers; ++p) printf(p ? "|%s" : ":%s", names[p]);
  printf("\n");
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 5 && strcmp(argv[1], "--log") == 0)
    return dealer_log(argv[2], atol(argv[3]), (uint32_t)atol(argv[4]));
  if (argc != 5) {
    fprintf(stderr, "usage: acpc_agent GAMEDEF HOST PORT SEED | --log GAMEDEF HANDS SEED\n");
    return 2;
  }
  FILE *file = fopen(argv[1], "r");
  Game *game = file ? readGame(file) : NULL;
  if (game == NULL) {
    fprintf(stderr, "could not read the game %s\n", argv[1]);
    return 2;
  }
  srand48(atol(argv[4]));
  int sock = dial(argv[2], argv[3]);
  if (sock < 0) {
    fprintf(stderr, "could not connect\n");
    return 2;
  }
  FILE *in = fdopen(sock, "r");
  FILE *out = fdopen(dup(sock), "w");
  fprintf(out, "VERSION:%d.%d.%d\r\n", VERSION_MAJOR, VERSION_MINOR, VERSION_REVISION);
  fflush(out);
  static char line[MAX_LINE_LEN], back[MAX_LINE_LEN], act[MAX_LINE_LEN];
  long hands = 0, actions = 0;
  while (fgets(line, MAX_LINE_LEN, in)) {
    size_t len = strcspn(line, "\r\n");
    line[len] = 0;
    if (line[0] == '#' || line[0] == ';' || len == 0) continue;
    MatchState state;
    int read = readMatchState(line, game, &state);
    if (read < 0 || (size_t)read != len) {
      fprintf(stderr, "could not read state %s\n", line);
      return 3;
    }
    if (printMatchState(game, &state, MAX_LINE_LEN, back) < 0 || strcmp(back, line) != 0) {
      fprintf(stderr, "printed back differently: %s (read %s)\n", back, line);
      return 4;
    }
    if (stateFinished(&state.state)) {
      printf("%s\n", line);
      ++hands;
      continue;
    }
    if (currentPlayer(game, &state.state) != state.viewingPlayer) continue;
    Action action = choose(game, &state.state);
    int n = printAction(game, &action, MAX_LINE_LEN, act);
    if (n < 0) return 5;
    act[n] = 0;
    fprintf(out, "%s:%s\r\n", line, act);
    fflush(out);
    ++actions;
  }
  printf("hands %ld actions %ld\n", hands, actions);
  return 0;
}
