"""Adapters for agent frameworks, each an optional extra:

- :mod:`anchormem.integrations.langchain` (``pip install 'anchormem[langchain]'``): a LangChain
  retriever and tools, usable in LangGraph graphs;
- :mod:`anchormem.integrations.langgraph_store` (the same extra): LangGraph's ``BaseStore`` over a memory;
- :mod:`anchormem.integrations.openai_agents` (``pip install 'anchormem[openai-agents]'``): function
  tools and a session for the OpenAI Agents SDK.

Each works over any of the four ways to reach a memory: ``Memory``, ``AsyncMemory``, ``Client`` or
``AsyncClient``.
"""
