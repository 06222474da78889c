/* The C++ program (programs/cxxapp.cpp), which links libstdc++ and its own probes. */
provider cxxapp {
    probe work(int round, string what);
};
