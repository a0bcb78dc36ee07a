from library.seed.pool import Company, Person, Product, SeedPool, seed_pool

__all__ = ["Company", "Person", "Product", "SeedPool", "seed_pool"]
